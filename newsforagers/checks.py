"""Settings under which a forager cannot work, or a colony cannot be polite, refused before
anything starts (``ForagerSpider.from_crawler`` runs :func:`check_components` on the settings
as they will be once the add-on has run)."""

from __future__ import annotations

from scrapy.utils.misc import load_object

from newsforagers.downloadhandlers import check_handlers
from newsforagers.errors import ForagersUsageError
from newsforagers.extensions.output import OutputExtension
from newsforagers.pipelines import ReinforcingAgentPipeline
from newsforagers.scheduler import ForagerScheduler


def check_components(settings) -> None:
    """Refuse settings under which a forager cannot work or a colony cannot be polite: the
    forager's scheduler, the reinforcing agent or the output extension replaced or disabled, or an ``http``/``https``
    download handler outside the colony's budget. Raises
    :class:`~newsforagers.errors.ForagersUsageError` saying which setting, why, and what to do."""
    scheduler = settings.get("SCHEDULER")
    scheduler_cls = load_object(scheduler) if isinstance(scheduler, str) else scheduler
    # not issubclass: Scrapy's BaseScheduler answers it by duck typing (any scheduler "is" one)
    if ForagerScheduler not in getattr(scheduler_cls, "__mro__", ()):
        raise ForagersUsageError(
            f"SCHEDULER ({scheduler!r}) replaces newsforagers.scheduler.ForagerScheduler, which "
            f"walks a forager's paths: subclass it, or remove SCHEDULER from the forager's settings.")
    pipelines = settings.getwithbase("ITEM_PIPELINES")
    enabled = [path for path, order in pipelines.items() if order is not None
               and _is_subclass(path, ReinforcingAgentPipeline)]
    if not enabled:
        raise ForagersUsageError(
            "ITEM_PIPELINES disables newsforagers.pipelines.ReinforcingAgentPipeline, the colony's "
            "reinforcing agent: without it no send is judged, rewarded or output. Give it an "
            "order (the add-on's is 100) instead of None.")
    extensions = settings.getwithbase("EXTENSIONS")
    if not any(order is not None and _is_subclass(path, OutputExtension) for path, order in extensions.items()):
        raise ForagersUsageError(
            "EXTENSIONS disables newsforagers.extensions.output.OutputExtension, which hands what "
            "every forager's item pipelines let through to the colony's feed, export and index: "
            "without it, the documents of every forager but the first would be lost. Give it an "
            "order (the add-on's is 540) instead of None.")
    check_handlers(settings)


def _is_subclass(path, base: type) -> bool:
    try:
        cls = load_object(path) if isinstance(path, str) else path
    except (ImportError, NameError, ValueError):
        return False
    return base in getattr(cls, "__mro__", ())
