"""The colony's two plots, drawn on the server as PNG (matplotlib, no pyplot: each figure is
its own object, so requests in different threads share no drawing state)."""

from __future__ import annotations

import io
import threading

from newsforagers.errors import install_hint

# matplotlib's font cache and text layout are not documented as thread-safe: one drawing at a time
_DRAWING = threading.Lock()

SIZE = (5.8, 3.0)  # inches, at 100 dpi: two side by side on a laptop's screen


class PlotsUnavailable(Exception):
    """matplotlib is not installed."""


def _figure():
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise PlotsUnavailable(f"the plots need matplotlib: {install_hint('web')}") from None
    return Figure(figsize=SIZE, dpi=100)


def _png(fig) -> bytes:
    fig.tight_layout()
    out = io.BytesIO()
    fig.savefig(out, format="png")
    return out.getvalue()


def _empty(ax, message: str) -> None:
    ax.text(0.5, 0.5, message, ha="center", va="center", transform=ax.transAxes, color="0.4")
    ax.set_xticks([])
    ax.set_yticks([])


def population_png(series: dict) -> bytes:
    """The number of foragers alive over time, births (▲) and deaths (▼) marked."""
    with _DRAWING:
        fig = _figure()
        ax = fig.add_subplot()
        points = series.get("population") or []
        if not points:
            _empty(ax, "no births yet")
        else:
            # the line goes on to the run's newest record: the population has not changed since
            end = max(series.get("end") or 0.0, points[-1]["t"])
            times = [0.0] + [p["t"] for p in points] + [end]
            alive = [0] + [p["alive"] for p in points] + [points[-1]["alive"]]
            ax.step(times, alive, where="post", color="tab:blue", label="alive")
            births, deaths = series.get("births") or [], series.get("deaths") or []
            if births:
                ax.plot([p["t"] for p in births], [p["alive"] for p in births], "^",
                        color="tab:green", label=f"births ({len(births)})")
            if deaths:
                ax.plot([p["t"] for p in deaths], [p["alive"] for p in deaths], "v",
                        color="tab:red", label=f"deaths ({len(deaths)})")
            ax.set_ylim(bottom=0, top=max(alive) + 1)
            ax.set_xlim(left=0)
            ax.yaxis.get_major_locator().set_params(integer=True)
            ax.legend(loc="lower right", fontsize="small")
        ax.set_title("population")
        ax.set_xlabel("seconds since the run's first event")
        ax.set_ylabel("foragers alive")
        return _png(fig)


def efficiency_png(series: dict) -> bytes:
    """Download efficiency (rewarded / downloaded) and sent efficiency (rewarded / sent) of the
    whole colony over time: since the start (solid) and over the last few snapshot rounds
    (dotted)."""
    with _DRAWING:
        fig = _figure()
        ax = fig.add_subplot()
        points = series.get("efficiency") or []
        if not points:
            _empty(ax, "no snapshots yet")
        else:
            times = [p["t"] for p in points]
            for key, label, colour, style in (
                ("download_efficiency", "rewarded / downloaded", "tab:blue", "-"),
                ("sent_efficiency", "rewarded / sent", "tab:orange", "-"),
                ("recent_download_efficiency", "recent", "tab:blue", ":"),
                ("recent_sent_efficiency", "recent", "tab:orange", ":"),
            ):
                values = [float("nan") if p.get(key) is None else p[key] for p in points]
                ax.plot(times, values, style, color=colour, label=label,
                        marker="." if len(points) < 30 else None)
            ax.set_ylim(bottom=0, top=1.05)
            ax.set_xlim(left=0)
            ax.legend(loc="lower right", fontsize="small", ncol=2)
        ax.set_title("efficiency")
        ax.set_xlabel("seconds since the run's first event")
        ax.set_ylabel("share")
        return _png(fig)
