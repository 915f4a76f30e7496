"""SVG made safe to inline into the report: an allowlist of elements and attributes, nothing that runs or loads.

The report inlines matplotlib's SVG (its own charts and the figures of `--analyses DIR`). The files of an
analyses folder are read from disk, so they are treated as untrusted: the SVG is parsed with defusedxml
(no entity expansion, no external entities) and written out again element by element, keeping only drawing
elements and presentation attributes. Dropped: scripts, `foreignObject`, `<style>` (it would style the whole
page), event-handler attributes, links and images that are not internal (`#id`) or inline raster data, and
any `url(...)` that is not a reference to an id inside the same figure. Ids are prefixed so that several
figures on one page never share one; text is escaped.
"""

from __future__ import annotations

import re
from html import escape
from xml.etree.ElementTree import Element

from defusedxml import ElementTree as SafeET

from climedbench.errors import DataError

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
XML_NS = "http://www.w3.org/XML/1998/namespace"

ELEMENTS = frozenset({
    "svg", "g", "defs", "path", "rect", "circle", "ellipse", "line", "polyline", "polygon", "text", "tspan",
    "title", "desc", "clipPath", "use", "symbol", "linearGradient", "radialGradient", "stop", "pattern", "mask",
    "marker", "image",
})
# Dropped together with everything inside them.
DROP_SUBTREE = frozenset({"script", "style", "foreignObject", "metadata", "a", "iframe", "animate", "set",
                          "animateTransform", "animateMotion", "handler", "feImage"})
ATTRIBUTES = frozenset({
    "id", "d", "x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "rx", "ry", "width", "height", "points",
    "transform", "viewBox", "preserveAspectRatio", "fill", "fill-opacity", "fill-rule", "stroke", "stroke-width",
    "stroke-opacity", "stroke-linecap", "stroke-linejoin", "stroke-dasharray", "stroke-dashoffset",
    "stroke-miterlimit", "opacity", "clip-path", "clip-rule", "mask", "style", "font-family", "font-size",
    "font-weight", "font-style", "font-stretch", "text-anchor", "dominant-baseline", "alignment-baseline",
    "baseline-shift", "letter-spacing", "word-spacing", "dx", "dy", "rotate", "textLength", "lengthAdjust",
    "offset", "stop-color", "stop-opacity", "gradientUnits", "gradientTransform", "patternUnits",
    "patternContentUnits", "patternTransform", "markerWidth", "markerHeight", "refX", "refY", "orient",
    "markerUnits", "marker-start", "marker-mid", "marker-end", "clipPathUnits", "maskUnits", "maskContentUnits",
    "version", "visibility", "display", "overflow", "color", "vector-effect", "shape-rendering", "text-rendering",
    "image-rendering", "paint-order", "fx", "fy", "spreadMethod",
})
_URL = re.compile(r"url\(\s*(['\"]?)(.*?)\1\s*\)", re.IGNORECASE)
_INTERNAL = re.compile(r"#[A-Za-z_][\w.\-]*")
_RASTER = re.compile(r"data:image/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=\s]*")
_UNSAFE_CSS = re.compile(r"expression|javascript:|@import|\\|behaviou?r|-moz-binding|</", re.IGNORECASE)


def _local(tag: str) -> tuple[str | None, str]:
    """('{ns}name' | 'name') → (ns, name)."""
    if tag.startswith("{"):
        ns, _, name = tag[1:].partition("}")
        return ns, name
    return None, tag


def _urls_ok(value: str) -> bool:
    """Every url(...) in the value points at an id inside the figure."""
    return all(_INTERNAL.fullmatch(m.group(2).strip()) for m in _URL.finditer(value))


def _prefix_urls(value: str, prefix: str) -> str:
    return _URL.sub(lambda m: f"url(#{prefix}{m.group(2).strip()[1:]})", value)


def _attribute(name: str, value: str, prefix: str) -> tuple[str, str] | None:
    """The attribute as it may appear in the page, or None to drop it."""
    ns, local = _local(name)
    if ns == XLINK_NS or (ns is None and local == "href"):
        if _INTERNAL.fullmatch(value.strip()):
            return "href", f"#{prefix}{value.strip()[1:]}"
        if _RASTER.fullmatch(value.strip()):
            return "href", value.strip()
        return None
    if ns == XML_NS:
        return ("xml:space", value) if local == "space" and value in ("preserve", "default") else None
    if ns is not None or local not in ATTRIBUTES:
        return None  # event handlers (on*) and anything unknown are not in the list
    if local == "id":
        return "id", prefix + value
    if local == "style" and _UNSAFE_CSS.search(value):
        return None
    if "url(" in value.lower():
        if not _urls_ok(value):
            return None
        value = _prefix_urls(value, prefix)
    return local, value


def _write(el: Element, prefix: str, out: list[str]) -> None:
    ns, name = _local(el.tag) if isinstance(el.tag, str) else (None, "")
    if (ns not in (SVG_NS, None)) or name in DROP_SUBTREE or name not in ELEMENTS:
        return
    attrs = []
    for k, v in el.attrib.items():
        kept = _attribute(k, v, prefix)
        if kept is not None:
            attrs.append(f' {kept[0]}="{escape(kept[1], quote=True)}"')
    if name in ("image", "use") and not any(a.startswith(" href=") for a in attrs):
        return  # an image of anything but inline raster data, or a reference outside the figure, is not shown
    if name == "svg" and not out:
        attrs.append(f' xmlns="{SVG_NS}"')
        # matplotlib puts its default line caps in a <style> element, which is dropped: same as attributes.
        attrs.append(' stroke-linejoin="round" stroke-linecap="butt"')
    out.append(f"<{name}{''.join(attrs)}>")
    if el.text:
        out.append(escape(el.text, quote=False))
    for child in el:
        _write(child, prefix, out)
        if child.tail:
            out.append(escape(child.tail, quote=False))
    out.append(f"</{name}>")


def sanitize_svg(text: str, prefix: str, where: str = "SVG") -> str:
    """Safe inline markup of an SVG document; a DataError naming `where` when it is not SVG."""
    if not re.fullmatch(r"[A-Za-z][\w\-]*", prefix):
        raise ValueError(f"bad id prefix {prefix!r}")
    try:
        root = SafeET.fromstring(text)
    except Exception as e:  # ParseError, and defusedxml's refusals of entities and external references
        raise DataError(f"{where}: not a well-formed SVG file ({e})") from e
    if _local(root.tag)[1] != "svg":
        raise DataError(f"{where}: the root element is <{_local(root.tag)[1]}>, not <svg>")
    out: list[str] = []
    _write(root, f"{prefix}-", out)
    return "".join(out)
