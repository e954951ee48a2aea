"""A team's own family profile, written in its configuration file, changes what binds — end
to end, through the real ``osrag`` command on the embedded index — and builds a new
generation (``osrag plan`` says why: the extraction version holds the profiles' digest).

The made-up family is event venues: a venue's price list calls its setup fee an
"installation charge". Without the profile, "setup fee under $500" is a quantity no profile
names: it is asked by its own words, no fact holds them, and the search steps down to any
amount under $500 (the cleaning fee too) — and says so. With it, the same question binds
to the installation charge alone.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from clirun import osrag

QUESTION = "setup fee under $500"
VENUES = {
    "harbour-hall.md": "# Harbour Hall price list\n\n- Installation charge: $450\n"
    "- Cleaning fee: $120\n",
    "mill-loft.md": "# Mill Loft price list\n\n- Cleaning fee: $300\n- Hire per hour: $95\n",
}
PROFILE = """
[[profiles]]
name = "venues"
title = "Event venues"
document_nouns = ["venue"]

[[profiles.quantities]]
name = "setup fee"
synonyms = ["installation charge", "set-up fee"]

[[profiles.examples]]
text = "Installation charge: $450\\nCleaning fee: $120"
question = "setup fee under $500"
amount = "$450"
decoys = ["$120"]
"""


def _write(tmp_path: Path, with_profile: bool) -> Path:
    config = tmp_path / "osrag.toml"
    config.write_text(
        'backend = "embedded"\nhome = "home"\n' + (PROFILE if with_profile else ""),
        encoding="utf-8",
    )
    return config


def _search(config: Path, cwd: Path) -> dict[str, object]:
    ran = osrag("search", QUESTION, "--config", str(config), "--json", cwd=cwd)
    assert ran.returncode == 0, ran.stderr
    return json.loads(ran.stdout)  # type: ignore[no-any-return]


def _docs(result: dict[str, object]) -> set[str]:
    return {hit["doc_id"] for hit in result["hits"]}  # type: ignore[attr-defined, index]


def test_a_profile_in_the_configuration_binds_its_synonym_and_rebuilds_the_generation(
    tmp_path: Path,
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name, text in VENUES.items():
        (corpus / name).write_text(text, encoding="utf-8")
    config = _write(tmp_path, with_profile=False)
    first = osrag("ingest", str(corpus), "--config", str(config), cwd=tmp_path)
    assert first.returncode == 0, first.stderr

    before = _search(config, tmp_path)
    assert before["amount_step"] == "role-free"
    assert _docs(before) == {"harbour-hall", "mill-loft"}  # any amount under $500
    assert "'setup fee' is in no profile: asked by its own words" in before["amount_notes"]
    assert "{setup fee}" in before["amount_steps"][0]["asked"][0]  # type: ignore[index]

    config = _write(tmp_path, with_profile=True)
    plan = osrag("plan", str(corpus), "--config", str(config), cwd=tmp_path)
    assert plan.returncode == 0, plan.stderr
    shown = " ".join(plan.stdout.split())
    assert "(a new generation)" in shown, shown
    assert "changes extraction.profiles.venues: None → digest" in shown, shown
    assert "changes versions.extractors:" in shown and "profiles@" in shown, shown
    second = osrag("ingest", str(corpus), "--config", str(config), cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    built = re.search(r"alias osrag-chunks → (\S+) \(was unset\)", first.stdout)
    moved = re.search(r"alias osrag-chunks → (\S+) \(was (\S+)\)", second.stdout)
    assert built is not None and moved is not None, (first.stdout, second.stdout)
    assert moved.group(2) == built.group(1) != moved.group(1)  # a new generation

    after = _search(config, tmp_path)
    assert after["amount_step"] == "bound"
    assert _docs(after) == {"harbour-hall"}
    assert after["amount_notes"] == []  # a profile's quantity: nothing to warn of
    asked = after["amount_steps"][0]["asked"][0]  # type: ignore[index]
    assert "label keys {installation charge, set up fee, setup fee}" in asked
    assert "('setup fee' is a quantity of the venues profile, also named " in asked


def test_a_profile_that_does_not_read_is_refused_naming_the_file_and_the_field(
    tmp_path: Path,
) -> None:
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "a.md").write_text("Fee: $5\n", encoding="utf-8")
    mine = tmp_path / "mine.toml"
    mine.write_text('name = "venues"\n[[quantities]]\nsynonyms = ["x"]\n', encoding="utf-8")
    config = tmp_path / "osrag.toml"
    config.write_text(
        'backend = "embedded"\nhome = "home"\nprofiles = ["mine.toml"]\n', encoding="utf-8"
    )
    ran = osrag("ingest", str(tmp_path / "corpus"), "--config", str(config), cwd=tmp_path)
    assert ran.returncode != 0
    line = " ".join(ran.stderr.split())
    assert "mine.toml" in line and "quantities[0].name" in line, line
    assert "Traceback" not in ran.stderr
