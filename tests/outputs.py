"""What the colony's stores hold once a document went all the way: paid for by the reinforcing
agent (its claim) and output by the forager's item pipelines (:meth:`ColonyStore.add_output`),
as the agent's item, unchanged by any user pipeline."""

from __future__ import annotations

from newsforagers.store import ColonyStore, DocumentRecord


def output(store: ColonyStore, keys: list[str], record: DocumentRecord, host: str = "host",
           with_text: bool = True) -> bool:
    """Claim ``keys`` for ``record``; when the claim wins, output its item as the agent made it.
    Returns whether the claim won."""
    if not store.claim(keys, record):
        return False
    store.add_output(record.item(with_text), host, record.forager)
    return True
