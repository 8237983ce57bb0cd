"""The web client: plain ES modules, CSS and SVG under ``static/``, served by
``unokit serve`` with no build step (docs/web.md).

:func:`routes` gives the server its web routes: ``/`` (the page), ``/r/{code}`` (the
page for a browser, the room's JSON for an API client), ``/me`` and
``/players/{username}`` (a profile), ``/matches/{code}`` (a finished match: its record,
its fair-deal check and a replay), ``/static/...`` (the files)
and ``/i18n/{lang}.json`` (a language's messages). The server passes in what this
layer may not import itself (the room handler and the catalogues).

>>> (STATIC / "index.html").is_file()
True
>>> wants_html("text/html,application/xhtml+xml,*/*;q=0.8"), wants_html("*/*")
(True, False)
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

STATIC = Path(__file__).resolve().parent / "static"
"""The folder of the web client's files."""

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
       "form-action 'self'; frame-ancestors 'none'")
"""The page's Content-Security-Policy: its own files only, no inline script."""

CACHE = "no-cache"
"""Static files are cached and revalidated (ETag / Last-Modified) on each use, so a
new version of the client is picked up at once without hashed file names."""

TYPES = {".js": "text/javascript; charset=utf-8", ".mjs": "text/javascript; charset=utf-8",
         ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml",
         ".json": "application/json", ".html": "text/html; charset=utf-8",
         ".woff2": "font/woff2"}
"""MIME types set explicitly (a system's own table may lack them or differ)."""

SECURITY = {"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "same-origin"}


def wants_html(accept: str) -> bool:
    """Whether an ``Accept`` header asks for a web page (a browser's navigation)."""
    return "text/html" in accept.lower()


PAGES = ("index.html", "profile.html", "match.html", "leaderboards.html")
"""The HTML documents: the game (``/``, ``/r/CODE``), a player's profile
(``/players/NAME``, ``/me``), a finished match (``/matches/CODE``) and the
leaderboards (``/leaderboards``)."""


def _page(name: str = "index.html") -> Response:
    response = FileResponse(STATIC / name, media_type=TYPES[".html"])
    response.headers.update(SECURITY)
    response.headers["Cache-Control"] = CACHE
    return response


def page_under(base: str, name: str = "index.html") -> str:
    """The page's HTML for a server hosted under the path ``base`` (``/uno``): its
    files' addresses start with it, and ``<meta name="unokit-base">`` tells the
    scripts.

    >>> html = page_under("/uno")
    >>> '<meta name="unokit-base" content="/uno">' in html, '"/static/' in html
    (True, False)
    """
    html = (STATIC / name).read_text(encoding="utf-8")
    return (html.replace('<meta name="unokit-base" content="">',
                         f'<meta name="unokit-base" content="{base}">')
            .replace('"/static/', f'"{base}/static/'))


def _page_at(base: str, name: str = "index.html") -> Callable[[], Response]:
    """The page ``name``'s response for a server under ``base`` (the file itself for
    none)."""
    if not base:
        return lambda: _page(name)
    body = page_under(base, name)

    def page() -> Response:
        response = Response(body, media_type=TYPES[".html"])
        response.headers.update(SECURITY)
        response.headers["Cache-Control"] = CACHE
        return response
    return page


class _Static(StaticFiles):
    """StaticFiles with explicit MIME types, the cache policy and the CSP."""

    def file_response(self, full_path: Any, stat_result: Any, scope: Scope,
                      status_code: int = 200) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        kind = TYPES.get(Path(str(full_path)).suffix.lower())
        if kind:
            response.headers["content-type"] = kind
        response.headers["Cache-Control"] = CACHE
        response.headers.update(SECURITY)
        return response


Handler = Callable[[Request], Awaitable[Response]]


def routes(room_json: Handler, languages: Iterable[str],
           messages: Callable[[str, str], Mapping[str, Any]],
           plural: Callable[[str], str], base: str = "") -> list[BaseRoute]:
    """The web client's routes (for a server hosted under the path ``base``, whose
    routes the caller mounts there).

    Args:
        room_json: the handler of ``/r/{code}`` for API clients (the room's JSON).
        languages: the language codes offered.
        messages: ``catalogue(lang, domain)``: the translated messages of a language.
        plural: ``plural_rule(lang)``: its plural expression.
        base: the path the server is hosted under (``""``: the root).
    """
    offered = tuple(languages)
    page = _page_at(base)
    profile_page, match_page = _page_at(base, "profile.html"), _page_at(base, "match.html")
    boards_page = _page_at(base, "leaderboards.html")

    async def index(request: Request) -> Response:
        return page()

    async def invite(request: Request) -> Response:
        if wants_html(request.headers.get("accept", "")):
            return page()
        return await room_json(request)

    async def profile(request: Request) -> Response:
        return profile_page()

    async def match(request: Request) -> Response:
        return match_page()

    async def leaderboards(request: Request) -> Response:
        return boards_page()

    async def language(request: Request) -> Response:
        lang = request.path_params["lang"]
        if lang not in offered:
            return JSONResponse({"error": "no_language",
                                 "message": "no such language"}, status_code=404)
        body = {"lang": lang, "plural": plural(lang), "messages": dict(messages(lang, "web"))}
        return JSONResponse(body, headers={"Cache-Control": CACHE})

    return [
        Route("/", index),
        Route("/r/{code}", invite),
        Route("/me", profile),
        Route("/players/{username}", profile),
        Route("/matches/{code}", match),
        Route("/leaderboards", leaderboards),
        Route("/i18n/{lang}.json", language),
        Mount("/static", app=_Static(directory=STATIC), name="static"),
    ]
