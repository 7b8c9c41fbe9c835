"""The driver's checkpoints: the mind's whole memory in ``JOBDIR/forager.json`` (written on a
thread, atomically), the bootstrapped encoder saved once beside it, and resuming from them or
from the spider state of a clean stop (see :mod:`newsforagers.driver`)."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING

from newsforagers.colony.checkpoint import (
    ENCODER_FILE,
    FORAGER_FILE,
    encode_checkpoint,
    read_checkpoint,
    replace_atomically,
    write_checkpoint,
)

if TYPE_CHECKING:
    pass

logger = logging.getLogger(__name__)

STATE_KEY = "forager"


class Checkpointing:
    """The checkpoint job of a :class:`~newsforagers.driver.base.Driver` (mixed into it: it
    reads the driver's ``mind``, ``jobdir``, ``model_path``, ``crawler`` and ``spider``)."""

    def _start_checkpoints(self) -> None:
        """Checkpoint every ``FORAGERS_CHECKPOINT_INTERVAL`` seconds (with JOBDIR)."""
        interval = self.mind.config.checkpoint_interval
        if self._timer is not None or self.jobdir is None or interval <= 0 or self._final:
            return

        async def loop():
            while not self._final:
                await asyncio.sleep(interval)
                if not self._final:
                    self.checkpoint()

        self._timer = asyncio.ensure_future(loop())

    # -- the reinforcing agent's answers ---------------------------------------------------

    # -- state and stats -------------------------------------------------------------------

    def _restore(self) -> None:
        """The spider state of a clean stop, when no checkpoint was restored at build time."""
        self._restored = True
        state = self._spider_state()
        saved = state.get(STATE_KEY)
        if saved:
            try:
                # the path's rows need the encoder that made them: only a checkpoint has both
                self.mind.restore(saved, path=False)
                logger.info("forager %s: resumed with a weblog of %d URLs", self.name, len(self.mind.weblog))
            except (KeyError, TypeError, ValueError) as exc:
                logger.error("forager %s: saved state unusable (%s); starting from the seeds", self.name, exc)
        self.save_state()

    def resume(self) -> bool:
        """Restore the newest valid checkpoint in JOBDIR, if any (called when the driver is
        built, before the forager joins the colony). True when one was restored."""
        if self.jobdir is None:
            return False
        saved = read_checkpoint(self.jobdir / FORAGER_FILE)
        if saved is None:
            return False
        try:
            with_path = self._resume_encoder(saved.get("encoder"))
            self.mind.restore(saved, path=with_path)
        except (KeyError, TypeError, ValueError) as exc:
            logger.error("forager %s: checkpoint unusable (%s); starting from the spider state or the seeds",
                         self.name, exc)
            return False
        self._seq = int(saved["seq"])
        self._restored = True
        self.save_state()
        forager = self.mind
        logger.info("forager %s: resumed from checkpoint %d: weblog of %d URLs, weight norm %.9f, %s%s",
                    self.name, self._seq, len(forager.weblog), float((forager.weights ** 2).sum() ** 0.5),
                    self._walk_summary(), ", retired" if forager.retired else "")
        self.crawler.stats.set_value("newsforagers/resume/checkpoint", self._seq)
        return True

    def _resume_encoder(self, kind: str | None) -> bool:
        """Put back the encoder the checkpoint was taken with; False when the saved path must
        be dropped (its state rows came from an encoder this forager does not have)."""
        has_model = self.model_path is not None
        if kind == "model":
            return has_model
        if kind == "bootstrapped" and not has_model:
            # (imported when first needed: scikit-learn takes a second to import)
            from newsforagers.text import StateEncoder

            try:
                encoder = StateEncoder.load(self.jobdir / ENCODER_FILE)
            except (OSError, ValueError) as exc:
                logger.warning("forager %s: saved state encoder unusable (%s); fitting a new one",
                               self.name, exc)
                return False
            # set directly: a paper forager given a new encoder would close its path
            self.mind.encoder = encoder
            self._encoder_saved = True
            return True
        return kind is None and not has_model and self.mind.encoder is None

    def _encoder_kind(self) -> str | None:
        if self.model_path is not None:
            return "model"
        if self.mind.encoder is not None and self._encoder_saved:
            return "bootstrapped"
        return None

    def _save_encoder(self, encoder) -> None:
        """(On a thread.) The bootstrapped encoder, once, beside the checkpoints."""
        import joblib

        replace_atomically(self.jobdir / ENCODER_FILE, lambda out: joblib.dump(encoder, out))
        self._encoder_saved = True

    def checkpoint(self, final: bool = False) -> None:
        """Write the forager's whole memory to JOBDIR/forager.json, atomically: on a thread,
        or at once when ``final`` (closing; nothing is written after it)."""
        if self.jobdir is None or not self._restored or self._final:
            return
        kind = self._encoder_kind()
        state = self.mind.to_state()
        if kind is None and self.mind.encoder is not None:
            # fitted, not yet saved: the rows would be meaningless to the next encoder
            state["path"], state["step"] = None, None
        self._seq += 1
        payload = encode_checkpoint({
            "seq": self._seq, "time": time.time(), "forager": self.name,
            "strategy": getattr(self.mind, "strategy", "paper"), "encoder": kind, **state})
        if final:
            self._final = True
            self._written(self._write(payload))
            return
        if self._writing:
            self._pending = payload  # the newest waits for the write in progress
            return
        self._write_later(payload)

    def _write_later(self, payload: bytes) -> None:
        from twisted.internet.threads import deferToThread

        self._writing = True

        def written(ok):
            self._writing = False
            self._written(ok is True)
            pending, self._pending = self._pending, None
            if pending is not None and not self._final:
                self._write_later(pending)

        deferToThread(self._write, payload).addBoth(written)

    def _write(self, payload: bytes) -> bool:
        with self._write_lock:
            try:
                write_checkpoint(self.jobdir / FORAGER_FILE, payload)
            except OSError as exc:
                logger.error("forager %s: cannot write its checkpoint: %s", self.name, exc)
                return False
        return True

    def _written(self, ok: bool) -> None:
        self.crawler.stats.inc_value("newsforagers/checkpoints" if ok else "newsforagers/checkpoints/failed")

    def _spider_state(self) -> dict:
        state = getattr(self.spider, "state", None)
        if not isinstance(state, dict):
            state = {}
            self.spider.state = state
        return state

    def save_state(self) -> None:
        # the spider state keeps the long-term memory only (see _restore)
        self._spider_state()[STATE_KEY] = self.mind.to_state(path=False)

