"""Offline page assets: Leaflet inlined from an installed package, and a guard against remote URLs.

Folium's default page pulls Leaflet, jQuery, Bootstrap, Font Awesome and
awesome-markers from CDNs; a player's map must open on a machine with no
network, so :class:`OfflineMap` drops all of them and inlines Leaflet's JS and
CSS (control images as ``data:`` URIs) from the ``django-js-lib-leaflet``
wheel at render time.  Nothing third-party is committed to this repository.
Our own small CSS (legend, labels, army counters) rides along in the same
header.  :func:`remote_urls` lists every URL in a page that a browser would
fetch; :func:`write_html` refuses to write a page that has any.
"""

from __future__ import annotations

import base64
import html.parser
import os
import re
import tempfile
from functools import lru_cache
from importlib import resources
from pathlib import Path

import folium
from branca.element import Element, Figure, MacroElement

from bellica.geo.errors import InputError, BellicaError
from bellica.web_maps.cartography import CARTOGRAPHY_JS
from bellica.web_maps.encode import BELLICA_JS

LEAFLET_PACKAGE = "js_lib_leaflet"

# Page furniture drawn by our own layers (legend, labels, counters).  Kept
# here so every map gets the same look and nothing is fetched for it.
BELLICA_CSS = """
.leaflet-container { background: #d9dde3; font-family: "Helvetica Neue", Arial, sans-serif; }
.bellica-legend { background: rgba(255,255,255,0.92); padding: 6px 8px; border-radius: 4px;
  box-shadow: 0 1px 4px rgba(0,0,0,0.35); font-size: 12px; line-height: 16px; max-height: calc(100vh - 360px); overflow-y: auto; }
.bellica-legend h4 { margin: 0 0 4px; font-size: 13px; }
.bellica-legend-head { position: absolute; top: 5px; right: 6px; background: none; border: none; padding: 0;
  font: bold 12px "Helvetica Neue", Arial, sans-serif; cursor: pointer; color: #1b1b1b; }
.bellica-legend-body h4:first-child { padding-right: 64px; }
.bellica-legend-closed { padding: 4px 8px; }
.bellica-legend-closed .bellica-legend-head { position: static; font-size: 13px; }
.bellica-legend-closed .bellica-legend-body { display: none; }
.bellica-symbol { border-radius: 50%; color: #fff; text-align: center; font-family: "DejaVu Sans", "Segoe UI Symbol",
  "Apple Symbols", sans-serif; box-shadow: 0 0 0 1.5px #fff, 0 0 2px 1.5px rgba(0,0,0,0.6); }
.bellica-legend .bellica-symbol { display: inline-block; border: none; vertical-align: -3px; margin-right: 6px; }
.bellica-legend .sw { display: inline-block; width: 14px; height: 12px; margin-right: 6px;
  vertical-align: -2px; border: 1px solid rgba(0,0,0,0.35); }
.bellica-legend .ln { display: inline-block; width: 16px; height: 0; margin-right: 6px;
  vertical-align: 3px; border-top: 3px solid; }
.bellica-legend .n { color: #666; margin-left: 4px; }
.bellica-title { background: rgba(255,255,255,0.92); padding: 4px 10px; border-radius: 4px;
  box-shadow: 0 1px 4px rgba(0,0,0,0.35); font-size: 15px; font-weight: bold; }
.bellica-tip table { border-collapse: collapse; }
.bellica-tip td { padding: 0 4px; font-size: 12px; }
.bellica-tip td:first-child { color: #555; }
.bellica-label { background: transparent; border: none; box-shadow: none; padding: 0;
  font-size: 11px; font-weight: bold; color: #1b1b1b;
  text-shadow: -1px -1px 0 #fff, 1px -1px 0 #fff, -1px 1px 0 #fff, 1px 1px 0 #fff; }
.bellica-label:before { display: none; }
.bellica-label.capital { font-size: 13px; }
.bellica-area-label { font-size: 10px; text-transform: uppercase; letter-spacing: 1px; color: #2b2b2b; }
.bellica-zone-label { background: transparent; border: none; box-shadow: none; padding: 0;
  font-size: 12px; font-style: italic; color: #0b3a66; letter-spacing: 1px;
  text-shadow: -1px -1px 0 #e8f1fa, 1px -1px 0 #e8f1fa, -1px 1px 0 #e8f1fa, 1px 1px 0 #e8f1fa; }
.bellica-zone-label:before { display: none; }
.bellica-star { text-align: center; text-shadow: 0 0 2px #000, 0 0 1px #000; }
.bellica-tip table.bellica-sides { margin-top: 4px; border-top: 1px solid #ccc; }
.bellica-tip .bellica-sides th { font-size: 11px; color: #555; text-align: left; padding: 0 4px; font-weight: normal; }
.bellica-tip .bellica-note { max-width: 300px; white-space: normal; font-size: 11px; color: #555; margin-top: 3px; }
.bellica-pinned .leaflet-popup-content { margin: 8px 10px; }
.bellica-pinning .bellica-hex-tip { display: none; }
.bellica-rose { width: 18px; height: 18px; line-height: 18px; border-radius: 50%; background: #111; color: #fff;
  font: bold 11px Arial, sans-serif; text-align: center; box-shadow: 0 0 0 2px #fff; }
.bellica-battle { font-size: 18px; line-height: 22px; width: 22px; height: 22px; text-align: center; color: #b00020;
  background: rgba(255,255,255,0.85); border-radius: 50%; box-shadow: 0 0 2px #000; }
.bellica-army .fp { font-size: 11px; }
.bellica-panel { background: rgba(255,255,255,0.92); padding: 4px 10px; border-radius: 4px;
  box-shadow: 0 1px 4px rgba(0,0,0,0.35); font-size: 12px; line-height: 16px; }
.bellica-panel td { padding: 0 4px; }
.bellica-panel .head { font-weight: bold; }
.bellica-toggle { background: #fff; border-radius: 4px; box-shadow: 0 1px 4px rgba(0,0,0,0.35); padding: 4px 10px;
  font: bold 13px Arial, sans-serif; cursor: pointer; border: none; }
.bellica-collapsed .bellica-legend, .bellica-collapsed .leaflet-control-layers, .bellica-collapsed .bellica-panel table
  { display: none; }
@media (max-width: 640px) { .bellica-legend { max-height: 45vh; } .bellica-title { font-size: 12px; } }
.bellica-army { display: flex; align-items: center; justify-content: center; box-sizing: border-box;
  border: 2px solid #111; font: bold 11px Arial, sans-serif; color: #fff;
  text-shadow: 0 0 2px #000; box-shadow: 1px 1px 2px rgba(0,0,0,0.5); }
"""


def _static_dir() -> Path:
    try:
        root = resources.files(LEAFLET_PACKAGE)
    except ModuleNotFoundError as e:
        raise BellicaError(
            "package django-js-lib-leaflet is not installed: run `pip install -e .` to get the Leaflet assets"
        ) from e
    path = Path(str(root)) / "static" / LEAFLET_PACKAGE
    if not (path / "leaflet.js").is_file() or not (path / "leaflet.css").is_file():
        raise BellicaError(f"{path} lacks leaflet.js/leaflet.css: reinstall django-js-lib-leaflet")
    return path


@lru_cache(maxsize=1)
def leaflet_js() -> str:
    """Leaflet's minified JS, safe to place inside a ``<script>`` element."""
    text = (_static_dir() / "leaflet.js").read_text(encoding="utf-8")
    # A literal "</script" inside the code would end the inline element early.
    return text.replace("</script", "<\\/script")


@lru_cache(maxsize=1)
def leaflet_css() -> str:
    """Leaflet's CSS with every ``url(images/...)`` replaced by a ``data:`` URI."""
    static = _static_dir()
    css = (static / "leaflet.css").read_text(encoding="utf-8")

    def inline(match: re.Match) -> str:
        image = static / "images" / match.group(1)
        if not image.is_file():
            raise BellicaError(f"leaflet.css names {image}, which the package lacks: reinstall django-js-lib-leaflet")
        data = base64.b64encode(image.read_bytes()).decode("ascii")
        return f"url(data:image/png;base64,{data})"

    return re.sub(r"url\(['\"]?images/([\w.-]+\.png)['\"]?\)", inline, css)


class OfflineMap(folium.Map):
    """A ``folium.Map`` whose page needs no network: Leaflet and our CSS are inlined.

    No tile layer is added (the hexes are the map); other folium elements that
    declare CDN ``default_js``/``default_css`` (markers with icons, plugins)
    must not be added to it -- :func:`write_html` would refuse the page.
    """

    default_js: list[tuple[str, str]] = []
    default_css: list[tuple[str, str]] = []

    def __init__(self, **kwargs):
        kwargs.setdefault("tiles", None)
        kwargs.setdefault("prefer_canvas", True)
        kwargs.setdefault("control_scale", True)
        # Quarter zoom steps let the initial fit fill the window instead of the next whole zoom out.
        kwargs.setdefault("zoom_snap", 0.25)
        super().__init__(**kwargs)

    def render(self, **kwargs):
        header = self.get_root().header
        # Added before folium's own header macro so Leaflet exists before any map script runs.
        header.add_child(RawHtml(f"<style>{leaflet_css()}</style>"), name="leaflet_css_inline")
        header.add_child(RawHtml(f"<script>{leaflet_js()}</script>"), name="leaflet_js_inline")
        header.add_child(RawHtml(f"<style>{BELLICA_CSS}</style>"), name="bellica_css")
        header.add_child(RawHtml(f"<script>{BELLICA_JS}</script>"), name="bellica_js")
        header.add_child(RawHtml(f"<script>{CARTOGRAPHY_JS}</script>"), name="bellica_cartography_js")
        super().render(**kwargs)


class RawHtml(Element):
    """Markup written into the page as it is.  A branca ``Element(text)`` compiles its text as a
    Jinja template at every page: for the inlined Leaflet script (150 kB) that lexing was a fifth
    of drawing a province map (59 of 265 ms), and a ``{{`` in a script would be read as a tag."""

    def __init__(self, html: str):
        super().__init__()
        self._html = html

    def render(self, **kwargs) -> str:
        return self._html


class RawMacroElement(MacroElement):
    """A branca ``MacroElement`` whose rendered macros go into the page as they are (:class:`RawHtml`).

    branca's ``MacroElement.render`` wraps each rendered macro (``header``, ``html``, ``script``) in
    ``Element(text)``, which compiles that text as a Jinja template once more: for a layer whose
    script holds its packed features (the Mediterranean's hexes, 760 kB), that lexing took a
    seventh of drawing a First Punic War map (52 of 375 ms), and a ``{{`` in a feature's label would
    be read as a tag.  This is branca's method with :class:`RawHtml` in place of ``Element``; a
    folium ``Layer`` subclass lists it after ``Layer``, so that ``Layer.render`` runs first (it adds
    the layer to the map) and reaches this one in place of branca's."""

    def render(self, **kwargs) -> None:
        figure = self.get_root()
        assert isinstance(figure, Figure), "You cannot render this Element if it is not in a Figure."
        macros = self._template.module.__dict__
        for part in ("header", "html", "script"):  # branca's order
            macro = macros.get(part)
            if macro is not None:
                getattr(figure, part).add_child(RawHtml(macro(self, kwargs)), name=self.get_name())
        for element in self._children.values():
            element.render(**kwargs)


_REMOTE = re.compile(r"^\s*(?:https?:)?//", re.IGNORECASE)
_CSS_URL = re.compile(r"url\(\s*['\"]?([^'\")]+)")
_CSS_IMPORT = re.compile(r"@import\s+['\"]([^'\"]+)")
_FETCHING_ATTRS = {"src", "href", "srcset", "poster", "data", "background", "action", "formaction"}


class _UrlCollector(html.parser.HTMLParser):
    """Collects URLs the browser would load: element attributes and CSS ``url()``/``@import``."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.urls: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if value is None:
                continue
            # A plain <a href> is navigated only on click; every other href (link, base) is fetched.
            if name in _FETCHING_ATTRS and not (tag == "a" and name == "href"):
                if name == "srcset":  # "a.png 1x, b.png 2x": the URL is each entry's first word
                    self.urls.extend(part.split()[0] for part in value.split(",") if part.split())
                else:
                    self.urls.append(value)
            if name == "style":
                self.urls.extend(_CSS_URL.findall(value))
        self._in_style = tag == "style"

    def handle_endtag(self, tag):
        if tag == "style":
            self._in_style = False

    def handle_data(self, data):
        if self._in_style:
            self.urls.extend(_CSS_URL.findall(data))
            self.urls.extend(_CSS_IMPORT.findall(data))


def remote_urls(page: str) -> list[str]:
    """Every http(s) or protocol-relative URL in ``page`` that a browser would fetch on load."""
    collector = _UrlCollector()
    collector.feed(page)
    collector.close()
    return [u for u in collector.urls if _REMOTE.match(u)]


def check_output(out_html: str | Path) -> Path:
    """The output path, if it names an .html file outside an existing non-directory."""
    out = Path(out_html)
    if out.suffix.lower() not in (".html", ".htm"):
        raise InputError(f"output {out} is not an .html file: pass --out ending in .html")
    if out.is_dir():
        raise InputError(f"output {out} is a directory: pass --out naming an .html file")
    return out


def write_html(page: str, out_html: str | Path) -> Path:
    """Write ``page`` to ``out_html`` atomically, refusing pages that would fetch remote URLs.

    The page goes to a temporary file in the same directory and is renamed into
    place, so a failed render never leaves a half-written map behind.
    """
    out = check_output(out_html)
    remote = remote_urls(page)
    if remote:
        raise BellicaError(f"the rendered page would fetch {remote[0]} (and {len(remote) - 1} more): it must work offline")
    if out.parent and not out.parent.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(page)
        os.chmod(tmp, 0o644)
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return out


__all__ = ["OfflineMap", "check_output", "BELLICA_CSS", "leaflet_css", "leaflet_js", "remote_urls", "write_html"]
