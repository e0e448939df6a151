#!/usr/bin/env python3
"""Draws the seeded review sample of the language data from the committed artifact.

    python3 dataset/scripts/review_sample.py SEED [COUNT] > sample.md

COUNT entries (default 100) are drawn with random.seed(SEED): per kind in proportion
to a fixed share (kanji 20, vocabulary 35, grammar 20, kana 5, radicals 5, lesson
questions 15 per hundred), each kind's pool in artifact order. Each entry is printed with
the fields a teacher reads (forms, readings, level, meanings, examples, conjugation,
keigo, origin; a lesson question with its prompt, choices and answer), so the review is
done on what customers receive.
"""

import io
import json
import random
import subprocess
import sys
from pathlib import Path

ARTIFACT = Path(__file__).resolve().parents[2] / "data" / "manabi-dataset.jsonl.zst"
SHARES = [
    ("kanji", 20),
    ("vocabulary", 35),
    ("grammar", 20),
    ("character", 5),
    ("radical", 5),
    ("question", 15),
]


def records():
    raw = subprocess.run(
        ["zstd", "-dc", str(ARTIFACT)], check=True, capture_output=True
    ).stdout
    for line in io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8"):
        yield json.loads(line)


def pools():
    by_kind = {kind: [] for kind, _ in SHARES}
    for record in records():
        if record.get("t") == "learnable":
            kind = record["summary"]["type"]
            if kind in by_kind:
                by_kind[kind].append(record["doc"])
        elif record.get("t") == "lesson":
            lesson = record["doc"]
            for question in lesson["questions"]:
                by_kind["question"].append({"lesson": lesson["id"], **question})
    return by_kind


def show_learnable(doc):
    keep = {k: v for k, v in doc.items() if k not in ("sources", "cross_checks")}
    for body in ("vocabulary", "kanji"):
        detail = keep.get(body)
        if isinstance(detail, dict):
            detail = dict(detail)
            detail.pop("glosses_by_locale", None)
            for example in detail.get("examples", []):
                example.pop("translations", None)
            keep[body] = detail
    return json.dumps(keep, ensure_ascii=False, indent=1)


def main():
    seed = int(sys.argv[1])
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    random.seed(seed)
    by_kind = pools()
    number = 0
    for kind, share in SHARES:
        take = round(share * count / 100)
        for doc in random.sample(by_kind[kind], take):
            number += 1
            ident = doc["id"] if kind != "question" else f'{doc["lesson"]} {doc["id"]}'
            print(f"## {number}. {kind}: {ident}\n")
            print("```json")
            print(show_learnable(doc))
            print("```\n")


if __name__ == "__main__":
    main()
