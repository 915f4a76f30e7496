// climedbench HTML report: language switch, sortable leaderboard, sample browser.
// Every text from the data is set with textContent (never innerHTML), so item and response text that contains
// markup is shown as text. Sample data is gzip + base64 in inert <script type="application/octet-stream">
// elements, decoded on demand with DecompressionStream: only the index of the task shown and the blocks of the
// page shown are ever decoded.
'use strict';
(function () {
  const meta = JSON.parse(document.getElementById('report-meta').textContent);
  const root = document.documentElement;
  window.climedbenchReport = { errors: [], ready: false, readyAt: null, renders: 0 };

  // ---- language -------------------------------------------------------------------------------------------
  function setLang(lang) {
    root.dataset.lang = lang;
    root.lang = lang;
    document.querySelectorAll('[data-set-lang]').forEach((b) => {
      b.setAttribute('aria-pressed', String(b.dataset.setLang === lang));
    });
    const sel = document.getElementById('s-task');
    if (sel) {
      meta.tasks.forEach((t, i) => {
        sel.options[i].textContent = t.code + ' · ' + (lang === 'zh' ? t.label.zh : t.label.en) + ' (' + t.n + ')';
      });
    }
  }
  document.querySelectorAll('[data-set-lang]').forEach((b) => b.addEventListener('click', () => setLang(b.dataset.setLang)));

  // ---- leaderboard sorting --------------------------------------------------------------------------------
  const board = document.getElementById('board');
  function sortBoard(th) {
    const col = Array.prototype.indexOf.call(th.parentNode.children, th);
    const numeric = th.dataset.type === 'num';
    const current = th.getAttribute('aria-sort');
    const dir = current === 'descending' ? 'ascending'
      : current === 'ascending' ? 'descending' : (numeric ? 'descending' : 'ascending');
    board.querySelectorAll('thead th').forEach((h) => h.removeAttribute('aria-sort'));
    th.setAttribute('aria-sort', dir);
    const body = board.tBodies[0];
    const keyOf = (row) => {
      const v = row.children[col].dataset.v;
      if (v === undefined || v === '') return null;
      return numeric ? parseFloat(v) : v;
    };
    const rows = Array.from(body.rows);
    rows.sort((a, b) => {
      const x = keyOf(a), y = keyOf(b);
      if (x === null && y === null) return 0;
      if (x === null) return 1; // missing values last, whatever the direction
      if (y === null) return -1;
      const d = numeric ? x - y : String(x).localeCompare(String(y));
      return dir === 'ascending' ? d : -d;
    });
    rows.forEach((r) => body.appendChild(r));
  }
  if (board) {
    board.querySelectorAll('thead th button.sort').forEach((b) => b.addEventListener('click', () => sortBoard(b.closest('th'))));
  }

  // ---- decoding ---------------------------------------------------------------------------------------------
  const decoded = new Map();
  async function bytesOf(text) {
    if (typeof Uint8Array.fromBase64 === 'function') return Uint8Array.fromBase64(text);
    const response = await fetch('data:application/octet-stream;base64,' + text);
    return new Uint8Array(await response.arrayBuffer());
  }
  function decode(id) {
    if (!decoded.has(id)) {
      decoded.set(id, (async () => {
        const el = document.getElementById(id);
        if (!el) throw new Error('missing data element ' + id);
        const bytes = await bytesOf(el.textContent.trim());
        const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
        return JSON.parse(await new Response(stream).text());
      })());
    }
    return decoded.get(id);
  }

  // ---- sample browser -------------------------------------------------------------------------------------
  const $ = (id) => document.getElementById(id);
  const ui = { task: $('s-task'), a: $('s-a'), b: $('s-b'), filter: $('s-filter'), search: $('s-search'),
    size: $('s-size'), prev: $('s-prev'), next: $('s-next'), status: $('s-status'), list: $('s-list') };
  const state = { page: 0, shown: [], token: 0 };
  const STATUS = { answered: 0, noanswer: 1, error: 2, missing: 3 };

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function str(block, k) { return k < 0 ? null : block.strings[k]; }
  function fmtScore(x) { return x === null || x === undefined ? '—' : (Math.round(x * 10000) / 10000).toString(); }

  function matches(index, i, a, b, filter, search) {
    const st = index.status[a][i];
    if (search && index.ids[i].toLowerCase().indexOf(search) < 0) return false;
    switch (filter) {
      case 'wrong': return st !== STATUS.missing && index.score[a][i] < 1;
      case 'noanswer': return st === STATUS.noanswer;
      case 'error': return st === STATUS.error;
      case 'a-only': return st !== STATUS.missing;
      case 'differ': return b >= 0 && st !== STATUS.missing && index.status[b][i] !== STATUS.missing
        && index.score[a][i] !== index.score[b][i];
      default: return true;
    }
  }

  function field(title, text, cls) {
    const box = el('div', 'field ' + (cls || ''));
    box.appendChild(el('h4', null, title));
    box.appendChild(el('pre', cls || null, text === null ? '—' : text));
    return box;
  }

  function answerBox(task, index, block, i, j, r) {
    const run = meta.runs[r];
    const st = index.status[r][i];
    const score = index.score[r][i];
    const box = el('section', 'answer');
    box.dataset.run = run.key;
    box.appendChild(el('h4', 'run-name', run.name));
    if (st === STATUS.missing) {
      box.classList.add('missing');
      box.appendChild(el('p', 'none', 'not in this run'));
      return box;
    }
    box.classList.add(score >= 1 ? 'full' : 'wrong');
    const dl = el('dl');
    const row = (k, v, cls) => { dl.appendChild(el('dt', null, k)); dl.appendChild(el('dd', cls, v === null ? '—' : v)); };
    row('score', fmtScore(score) + (task.metric ? ' (' + task.metric + ')' : ''), 'score');
    row('extracted', str(block, block.extracted[r][j]), 'extracted');
    row('rule', str(block, block.method[r][j]), 'method');
    if (st === STATUS.noanswer) row('no answer', str(block, block.reason[r][j]) || 'extraction failure', 'reason');
    if (st === STATUS.error) row('error', str(block, block.error[r][j]), 'error');
    box.appendChild(dl);
    box.appendChild(el('h4', null, 'response'));
    box.appendChild(el('pre', 'raw', str(block, block.raw[r][j]) === null ? '—' : str(block, block.raw[r][j])));
    const prompt = str(block, block.prompt[r][j]);
    if (prompt !== null) {
      const d = el('details', 'prompt');
      d.appendChild(el('summary', null, 'prompt sent'));
      d.appendChild(el('pre', 'prompt-text', prompt));
      box.appendChild(d);
    }
    return box;
  }

  function card(task, index, block, i, j, a, b) {
    const art = el('article', 'sample');
    art.dataset.id = index.ids[i];
    const head = el('header');
    head.appendChild(el('span', 'id', index.ids[i]));
    head.appendChild(el('span', 'task', task.code));
    art.appendChild(head);
    const runs = b >= 0 && b !== a ? [a, b] : [a];
    const inputs = runs.map((r) => block.input[r][j]);
    const known = inputs.filter((k) => k >= 0);
    if (known.length === 0) {
      art.appendChild(field('input', 'the run\'s data could not be read again: input not available', 'input'));
    } else if (known.every((k) => k === known[0])) {
      art.appendChild(field('input', str(block, known[0]), 'input'));
    } else {
      runs.forEach((r, n) => art.appendChild(field('input (' + meta.runs[r].name + ')', str(block, inputs[n]), 'input')));
    }
    const gold = runs.map((r) => block.gold[r][j]).find((k) => k >= 0);
    art.appendChild(field('reference answer', gold === undefined ? null : str(block, gold), 'gold'));
    const ref = str(block, block.reference[j]);
    if (ref !== null && (gold === undefined || ref !== str(block, gold))) art.appendChild(field('reference', ref, 'reference'));
    const answers = el('div', 'answers');
    runs.forEach((r) => answers.appendChild(answerBox(task, index, block, i, j, r)));
    art.appendChild(answers);
    return art;
  }

  async function render() {
    const token = ++state.token;
    const t = parseInt(ui.task.value, 10);
    const task = meta.tasks[t];
    if (!task) { ui.status.textContent = 'no samples'; return; }
    const a = parseInt(ui.a.value, 10);
    const b = parseInt(ui.b.value, 10);
    const size = parseInt(ui.size.value, 10);
    const search = ui.search.value.trim().toLowerCase();
    ui.status.textContent = 'Loading…';
    const index = await decode(task.index);
    if (token !== state.token) return;
    const shown = [];
    for (let i = 0; i < index.ids.length; i++) if (matches(index, i, a, b, ui.filter.value, search)) shown.push(i);
    const pages = Math.max(1, Math.ceil(shown.length / size));
    state.page = Math.min(state.page, pages - 1);
    const slice = shown.slice(state.page * size, (state.page + 1) * size);
    const needed = Array.from(new Set(slice.map((i) => Math.floor(i / task.block_size))));
    const blocks = new Map();
    await Promise.all(needed.map(async (k) => { blocks.set(k, await decode(task.blocks[k])); }));
    if (token !== state.token) return;
    const frag = document.createDocumentFragment();
    slice.forEach((i) => {
      const k = Math.floor(i / task.block_size);
      frag.appendChild(card(task, index, blocks.get(k), i, i - k * task.block_size, a, b));
    });
    ui.list.replaceChildren(frag);
    const first = shown.length ? state.page * size + 1 : 0;
    ui.status.textContent = 'items ' + first + '–' + (state.page * size + slice.length) + ' of ' + shown.length
      + (shown.length !== index.ids.length ? ' (filtered from ' + index.ids.length + ')' : '')
      + ' · page ' + (state.page + 1) + ' of ' + pages;
    ui.prev.disabled = state.page === 0;
    ui.next.disabled = state.page >= pages - 1;
    state.shown = shown;
    const report = window.climedbenchReport;
    report.renders += 1;
    if (!report.ready) report.readyAt = performance.now(); // ms since navigation start: first page of samples shown
    report.ready = true;
  }

  function refresh(resetPage) {
    if (resetPage) state.page = 0;
    render().catch((e) => {
      window.climedbenchReport.errors.push(String(e));
      ui.status.textContent = 'Cannot show samples: ' + e + (typeof DecompressionStream === 'undefined'
        ? ' (this browser lacks DecompressionStream; use a current Chrome, Edge, Firefox or Safari)' : '');
    });
  }

  if (ui.task && meta.tasks.length) {
    ['task', 'a', 'b', 'filter', 'size'].forEach((k) => ui[k].addEventListener('change', () => refresh(true)));
    ui.search.addEventListener('input', () => refresh(true));
    ui.prev.addEventListener('click', () => { state.page = Math.max(0, state.page - 1); refresh(false); });
    ui.next.addEventListener('click', () => { state.page += 1; refresh(false); });
    document.getElementById('sample-controls').addEventListener('submit', (e) => e.preventDefault());
    document.querySelectorAll('a.goto').forEach((link) => link.addEventListener('click', () => {
      const t = meta.tasks.findIndex((x) => x.code === link.dataset.task);
      const r = meta.runs.findIndex((x) => x.key === link.dataset.run);
      if (t >= 0) ui.task.value = String(t);
      if (r >= 0) {
        ui.a.value = String(r);
        if (parseInt(ui.b.value, 10) === r) ui.b.value = String(meta.runs.length > 1 ? (r + 1) % meta.runs.length : -1);
      }
      refresh(true);
    }));
    refresh(true);
  } else {
    window.climedbenchReport.ready = true; // no sample browser on this page (--no-samples)
  }
  setLang(meta.language);
})();
