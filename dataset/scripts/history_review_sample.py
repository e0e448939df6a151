#!/usr/bin/env python3
"""Draws the seeded review sample of the history domain from the committed artifact.

    python3 dataset/scripts/history_review_sample.py SEED [COUNT] > sample.md
    python3 dataset/scripts/history_review_sample.py --ids FILE > listed.md

COUNT history entities (default 100) are drawn with random.seed(SEED) from all history
entities in artifact order (or, with --ids, the entities whose ids FILE lists one per
line, for the review of what a change added), and printed with what a historian reads: names and aliases,
dates with their precision, roles, offices, place, description, and every relation with
its kind, target name and basis, so the review is done on what customers receive.
"""

import json
import random
import sys

from review_sample import records


def date(value):
    if not value:
        return "?"
    circa = "c. " if value.get("approximate") else ""
    return f"{circa}{value['value']} ({value['precision']})"


def main():
    listed = None
    if sys.argv[1] == "--ids":
        with open(sys.argv[2], encoding="utf-8") as ids:
            listed = [line.strip() for line in ids if line.strip()]
    else:
        seed = int(sys.argv[1])
        count = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    entities, names, outgoing = [], {}, {}
    for record in records():
        if record.get("t") == "learnable" and record["summary"]["domain"] == "history":
            entities.append(record)
            names[record["summary"]["id"]] = record["summary"]["canonical_name"]
        elif record.get("t") == "relation":
            outgoing.setdefault(record["from"], []).append(record)
    if listed is None:
        random.seed(seed)
        chosen = random.sample(entities, count)
        print(f"# History review sample, seed {seed}, {count} of {len(entities)} entities\n")
    else:
        by_id = {record["summary"]["id"]: record for record in entities}
        chosen = [by_id[i] for i in listed if i in by_id]
        print(f"# History entities listed, {len(chosen)} of {len(entities)} entities\n")
    for number, record in enumerate(chosen, 1):
        summary, detail = record["summary"], record["doc"]["history"]
        span = detail.get("timespan") or {}
        print(f"## {number}. {summary['id']}")
        print(f"- type: {detail['history_type']}; name: {detail['canonical_name']}")
        aliases = ", ".join(a["text"] for a in detail.get("aliases", []))
        print(f"- aliases: {aliases}")
        if span:
            print(f"- dates: {date(span.get('start'))} – {date(span.get('end'))}")
        for field in ("roles", "offices", "geographic_scope"):
            if detail.get(field):
                print(f"- {field}: {json.dumps(detail[field], ensure_ascii=False)}")
        print(f"- meaning: {summary.get('meaning')}")
        print(f"- description: {detail.get('description')}")
        for relation in outgoing.get(summary["id"], []):
            target = names.get(relation["to"], relation["to"])
            print(f"  - {relation['kind']} → {target} ({relation['basis']})")
        print()


if __name__ == "__main__":
    main()
