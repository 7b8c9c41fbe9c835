"""The dashboard's Flask application: ``create_app(...)`` builds it, opening nothing.

Pages (Jinja2 templates, autoescaped) and the JSON endpoints that carry the same data:

=====================  =========================  ==============================================
page                   JSON                       what
=====================  =========================  ==============================================
``/``, ``/search``     ``/api/search``            ranked results, snippets, facets (``q``,
                                                  ``lang``, ``since``, ``page``, ``limit``)
``/latest``            ``/api/latest``            the newest discoveries and their lag (``limit``)
``/colony``            ``/api/colony``            the foragers and the colony's summary
                       ``/api/colony/series``     population, births, deaths, efficiency
``/colony/*.png``                                 the population and efficiency plots
=====================  =========================  ==============================================

Values from crawled pages reach the page only through the templates' escaping and, for the
parts the page's script refreshes, through text nodes; the Content-Security-Policy allows
the dashboard's own script and nothing inline, should anything ever slip through.

A request whose ``Host`` is not one the dashboard serves (:mod:`newsforagers.web.hosts`: a
page of another site, its name rebound to this address) gets ``400`` and nothing else. Every
error under ``/api/`` is JSON, ``{"error": "..."}``: 400 (an argument the dashboard does not
take, the same rules as ``newsforagers search``), 404, 405, 500, 503.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from pathlib import Path

from flask import Flask, Response, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from newsforagers import defaults
from newsforagers.colony.status import DEFAULT_RUNS_DIR
from newsforagers.index.query import hit_count
from newsforagers.terminal import printable
from newsforagers.web.colony import RECENT, ColonyWatch
from newsforagers.web.hosts import HostCheck
from newsforagers.web.latest import DEFAULT_LIMIT, MAX_LIMIT, latest
from newsforagers.web.plots import PlotsUnavailable, efficiency_png, population_png
from newsforagers.web.search import BadSearch, SearchRequest, search
from newsforagers.web.sources import Sources, SourceUnavailable, read_again

logger = logging.getLogger(__name__)

# seconds between two refreshes of the pages that follow a running crawl
LATEST_POLL = 1.5
COLONY_POLL = 2.0

_SECURITY_HEADERS = {
    "Content-Security-Policy": ("default-src 'none'; script-src 'self'; style-src 'self'; "
                                "img-src 'self'; connect-src 'self'; base-uri 'none'; "
                                "form-action 'self'; frame-ancestors 'none'"),
    "X-Content-Type-Options": "nosniff",
    # a click on a crawled link tells that site nothing about the dashboard
    "Referrer-Policy": "no-referrer",
}

#: Refused ``Host`` names warned about once each (then no more: a page may ask many times).
WARNED_HOSTS_MAX = 20


def create_app(store: str | None = None, *, prefix: str = defaults.FORAGERS_REDIS_PREFIX,
               index: str | Path | None = None, run_dir: str | Path | None = None,
               runs_base: str | Path = DEFAULT_RUNS_DIR, password_file: str = "",
               hosts: Iterable[str] = (), any_address: bool = False) -> Flask:
    """The dashboard of the colony store ``store`` (a URL; ``prefix`` for Redis), the document
    index at ``index`` and the run directory ``run_dir`` (None: the newest under
    ``runs_base``; ``password_file``: a Redis store's password file). Any of them may be missing,
    or appear later: its views say so.

    It answers requests whose ``Host`` is ``localhost``, a loopback address, one of ``hosts``
    or, with ``any_address`` (it serves other machines), any IP address
    (:class:`~newsforagers.web.hosts.HostCheck`)."""
    app = Flask(__name__)
    app.jinja_env.autoescape = True  # every template, whatever its name
    sources = Sources(store_url=store, prefix=prefix,
                      index_path=Path(index) if index is not None else None,
                      run_dir=Path(run_dir) if run_dir is not None else None,
                      runs_base=Path(runs_base), password_file=password_file)
    colony = ColonyWatch(sources)
    host_check = HostCheck(hosts, addresses=any_address)
    warned_hosts: set[str] = set()
    app.extensions["newsforagers"] = {"sources": sources, "colony": colony, "hosts": host_check}

    @app.before_request
    def check_host():
        host = request.headers.get("Host")
        if host_check.allows(host):
            return None
        if host not in warned_hosts and len(warned_hosts) < WARNED_HOSTS_MAX:
            warned_hosts.add(host)
            logger.warning("refused a request for host %r (%s): not a name this dashboard "
                           "serves; a page of another site may be trying to read it (DNS "
                           "rebinding). Give --allow-remote NAME to serve a name",
                           printable(host)[:100], printable(request.path)[:100])
        # nothing of the dashboard in the answer: the page that asked can read it
        message = "this dashboard does not answer to that host name"
        if _is_api():
            return jsonify({"error": message}), 400
        return Response(message + "\n", status=400, mimetype="text/plain")

    @app.after_request
    def secure(response: Response) -> Response:
        for name, value in _SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        return response

    @app.context_processor
    def page_context() -> dict:
        return {"sources": sources, "active": request.endpoint}

    # -- search --------------------------------------------------------------------------------

    def search_data() -> tuple[SearchRequest, dict | None, str | None]:
        try:
            asked = SearchRequest.from_args(request.args)
        except BadSearch as exc:
            raise _BadArgument(str(exc)) from None
        try:
            return asked, read_again(lambda: search(sources, asked)), None
        except SourceUnavailable as exc:
            return asked, None, str(exc)

    @app.get("/")
    @app.get("/search")
    def search_page():
        asked, data, error = search_data()
        return render_template("search.html", asked=asked, data=data, error=error)

    @app.get("/api/search")
    def search_api():
        asked, data, error = search_data()
        if error is not None:
            return _unavailable(error)
        return jsonify(data)

    # -- latest discoveries --------------------------------------------------------------------

    def latest_data() -> tuple[dict | None, str | None]:
        try:
            limit = hit_count(request.args.get("limit", DEFAULT_LIMIT), maximum=MAX_LIMIT)
        except ValueError as exc:
            raise _BadArgument(f"limit {exc}") from None
        try:
            return read_again(lambda: latest(sources, limit)), None
        except SourceUnavailable as exc:
            return None, str(exc)

    @app.get("/latest")
    def latest_page():
        data, error = latest_data()
        return render_template("latest.html", data=data, error=error, poll=LATEST_POLL,
                               limit=DEFAULT_LIMIT)

    @app.get("/api/latest")
    def latest_api():
        data, error = latest_data()
        if error is not None:
            return _unavailable(error)
        return jsonify(data)

    # -- the colony ----------------------------------------------------------------------------

    @app.get("/colony")
    def colony_page():
        return render_template("colony.html", report=colony.report(), poll=COLONY_POLL,
                               recent=RECENT)

    @app.get("/api/colony")
    def colony_api():
        return jsonify(colony.report())

    @app.get("/api/colony/series")
    def colony_series_api():
        return jsonify(colony.series())

    def plot(draw) -> Response:
        try:
            image = draw(colony.series())
        except PlotsUnavailable as exc:
            return Response(str(exc), status=503, mimetype="text/plain")
        response = Response(image, mimetype="image/png")
        response.headers["Cache-Control"] = "no-store"
        return response

    @app.get("/colony/population.png")
    def population_plot():
        return plot(population_png)

    @app.get("/colony/efficiency.png")
    def efficiency_plot():
        return plot(efficiency_png)

    @app.get("/favicon.ico")
    def favicon():
        return Response(status=204)  # no icon, and no 404 in the browser's console

    @app.errorhandler(404)
    def not_found(error):
        if _is_api():
            return jsonify({"error": "no such endpoint"}), 404
        return render_template("message.html", heading="Not found",
                               message="The dashboard has no page here."), 404

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException):
        # 400, 405, ...: what werkzeug says of it, as JSON under /api/
        message = error.description or error.name
        if _is_api():
            response = jsonify({"error": message})
            response.status_code = error.code or 500
            allowed = getattr(error, "valid_methods", None)  # a 405's
            if allowed:
                response.headers["Allow"] = ", ".join(allowed)
            return response
        return render_template("message.html", heading=error.name, message=message), error.code

    @app.errorhandler(500)
    def failed(error):
        # the log has the traceback; the page says what happened, not how
        if _is_api():
            return jsonify({"error": "the dashboard failed to answer (see its log)"}), 500
        return render_template("message.html", heading="Something went wrong",
                               message="The dashboard failed to answer this request; its log "
                               "says why."), 500

    return app


class _BadArgument(HTTPException):
    """An argument the dashboard does not take: 400, the message saying why."""

    code = 400
    name = "Bad request"


def _is_api() -> bool:
    return request.path == "/api" or request.path.startswith("/api/")


def _unavailable(message: str):
    return jsonify({"error": message}), 503
