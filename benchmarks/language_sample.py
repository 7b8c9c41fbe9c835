"""How large a sample of a text tells its language: py3langid on samples of several sizes
(``language_sample``) against the whole text, and what each costs.

Two sets of texts: a corpus's documents (title and body; default digital.gov, English), and
texts in many languages made of the translations Debian ships of its programs' messages
(``/usr/share/locale/*/LC_MESSAGES/*.mo``, the messages of more than 25 characters of each
locale, shuffled, up to 20,000 characters; country-name catalogues left out), skipped when the
machine has none. For each sample size: how many texts get the language of the whole text,
and the CPU a detection takes.

    python benchmarks/language_sample.py [--corpus ../shared/data/digitalgov.jsonl.gz] [--sizes 2000,1000,600]
"""

from __future__ import annotations

import argparse
import gettext
import gzip
import json
import random
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from newsforagers.pages import document  # noqa: E402

LOCALES = Path("/usr/share/locale")


def corpus_texts(path: Path) -> dict[str, str]:
    texts = {}
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        for line in lines:
            doc = json.loads(line)
            texts[doc["url"]] = f"{doc.get('title') or ''}\n{doc.get('body') or ''}"
    return texts


def locale_texts(root: Path = LOCALES, least: int = 200) -> dict[str, str]:
    """A text per locale with at least ``least`` translated messages."""
    texts = {}
    for folder in sorted(root.iterdir()) if root.is_dir() else ():
        messages = []
        for catalogue in sorted(folder.glob("LC_MESSAGES/*.mo")):
            if catalogue.name.startswith("iso_"):
                continue  # country and language names: not sentences
            try:
                with open(catalogue, "rb") as handle:
                    translations = gettext.GNUTranslations(handle)
            except (OSError, ValueError, LookupError):  # a catalogue Python cannot parse
                continue
            for source, text in translations._catalog.items():  # (the catalogue's own mapping)
                original = source if isinstance(source, str) else source[0]
                if isinstance(text, str) and len(text) > 25 and text != original:
                    messages.append(text)
        if len(messages) >= least:
            random.Random(1).shuffle(messages)
            texts[folder.name] = "\n".join(messages)[:20_000]
    return texts


def language(text: str) -> str:
    found, probability = document._language_identifier().classify(text)
    return str(found) if probability >= document.LANGUAGE_MIN_PROBABILITY else ""


def measure(name: str, texts: dict[str, str], sizes: list[int]) -> dict:
    whole = {key: language(text) for key, text in texts.items()}
    result = {"texts": name, "n": len(texts), "sizes": {}}
    for size in sizes:
        began = time.process_time()
        told = {key: language(document.language_sample(text, size)) for key, text in texts.items()}
        spent = time.process_time() - began
        differ = sorted(f"{key}: {whole[key] or '-'} -> {told[key] or '-'}" for key in texts if told[key] != whole[key])
        result["sizes"][size] = {"as_whole": len(texts) - len(differ),
                                 "ms_per_text": round(1000 * spent / max(1, len(texts)), 3), "differ": differ[:20]}
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default=str(REPO.parent / "shared" / "data" / "digitalgov.jsonl.gz"))
    parser.add_argument("--sizes", default="2000,1000,600")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    language("warm the model up with a sentence of plain English words")
    sets = []
    if Path(args.corpus).exists():
        sets.append((Path(args.corpus).name, corpus_texts(Path(args.corpus))))
    else:
        print(f"{args.corpus}: not found, skipped", file=sys.stderr)
    locales = locale_texts()
    if locales:
        sets.append(("locales", locales))
    else:
        print(f"{LOCALES}: no translations here, skipped", file=sys.stderr)
    for name, texts in sets:
        print(json.dumps(measure(name, texts, sizes)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
