"""The profile engine: profiles are data, read by one loader into one vocabulary; an error
names the file and the field; the digest follows the records; no family's word is code."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from osrag.config import load_settings
from osrag.errors import ConfigError
from osrag.lexicon.keys import label_keys
from osrag.lexicon.profiles import (
    Profile,
    Vocabulary,
    builtin_profiles,
    builtin_vocabulary,
    load_profile,
    profiles_digest,
    profiles_in_use,
    read_profile,
    vocabulary,
)
from osrag.models import ExtractionConfig
from osrag.search.analysis import analyze_query

LEXICON = Path(__file__).resolve().parents[2] / "osrag" / "lexicon"

VENUES = {
    "name": "venues",
    "document_nouns": ["venue"],
    "quantity_nouns": ["hire"],
    "quantities": [{"name": "setup fee", "synonyms": ["installation charge"]}],
}


def test_the_built_in_profiles_are_the_families_and_read_without_error() -> None:
    names = [p.name for p in builtin_profiles()]
    assert names == sorted(names)
    assert {"financial", "insurance", "invoices", "leases", "loans", "compensation",
            "purchasing", "contracts"} <= set(names)  # fmt: skip
    assert all(p.quantities and p.description for p in builtin_profiles() if p.name != "common")


def test_no_family_word_is_written_in_the_lexicon_code() -> None:
    """The words the quantity vocabulary used to hold in code are the profiles' records:
    the lexicon's modules name no quantity of a family ("revenue", "deductible", "rent")."""
    family_words = {"revenue", "deductible", "premium", "rent", "invoice", "net sales"}
    for path in sorted(LEXICON.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        strings = {
            node.value.casefold()
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and not (node.value.count(" ") > 3)  # docstrings and prose, not word lists
        }  # fmt: skip
        words = {w for s in strings for w in s.split()} | strings
        assert not family_words & words, (path.name, family_words & words)


def test_a_profile_that_does_not_read_is_refused_naming_the_file_and_the_field(
    tmp_path: Path,
) -> None:
    path = tmp_path / "mine.toml"
    path.write_text('name = "Bad"\n[[quantities]]\nsynonyms = ["x"]\n', encoding="utf-8")
    with pytest.raises(ConfigError) as raised:
        load_profile(path)
    message = str(raised.value)
    assert str(path) in message and "\n" not in message
    assert "name: 'Bad' is not a profile name" in message
    assert "quantities[0].name: Field required" in message
    path.write_text("name = [", encoding="utf-8")
    with pytest.raises(ConfigError, match="is not valid TOML"):
        load_profile(path)
    with pytest.raises(ConfigError, match="does not exist"):
        load_profile(tmp_path / "nowhere.toml")


def test_an_example_must_write_its_amount_in_its_text() -> None:
    with pytest.raises(ConfigError, match=r"examples\[0\]: amount '\$9' is not written"):
        read_profile(
            {"name": "x", "examples": [{"text": "Fee: $5", "question": "fee over $1",
                                        "amount": "$9"}]},
            "here",
        )  # fmt: skip


def test_the_configuration_names_profile_files_and_tables(tmp_path: Path) -> None:
    (tmp_path / "mine.toml").write_text('name = "mine"\n', encoding="utf-8")
    config = tmp_path / "osrag.toml"
    config.write_text(
        'profiles = ["mine.toml", {name = "inline"}]\n', encoding="utf-8"
    )  # a file relative to the configuration, and a table
    settings = load_settings(config=config)
    assert [p.name for p in settings.family_profiles()] == ["mine", "inline"]
    assert settings.extraction().profiles == settings.family_profiles()
    config.write_text('[[profiles]]\nname = "x"\nquantities = [{synonyms = []}]\n', "utf-8")
    with pytest.raises(ConfigError) as raised:
        load_settings(config=config).family_profiles()
    assert f"{config.resolve()}: profiles[0]" in str(raised.value)
    assert "quantities[0].name: Field required" in str(raised.value)


def test_the_digest_follows_every_record_and_not_where_a_profile_was_read() -> None:
    one = read_profile(VENUES, "a.toml")
    assert read_profile(VENUES, "elsewhere.toml").digest == one.digest
    more = read_profile({**VENUES, "document_nouns": ["venue", "hall"]}, "a.toml")
    assert more.digest != one.digest
    assert profiles_digest([one]) != profiles_digest([more])
    plain, mine = ExtractionConfig(), ExtractionConfig(profiles=(one,))
    assert plain.version != mine.version
    assert plain.version.endswith(f"profiles@{builtin_vocabulary().digest}")


def test_groups_that_share_a_name_are_one_and_a_profile_of_a_built_in_name_extends_it() -> None:
    extra = read_profile(
        {"name": "invoices", "quantities": [{"name": "amount payable", "synonyms": ["to pay"]}]},
        "mine.toml",
    )
    v = Vocabulary((*builtin_profiles(), extra))
    assert "to pay" in v.synonyms_of("balance due")
    assert "to pay" not in builtin_vocabulary().synonyms_of("balance due")
    # the two families' shipping names are one group
    assert "carriage" in v.synonyms_of("freight") and "postage" in v.synonyms_of("freight")


def test_a_configured_profile_is_in_use_only_within_its_context() -> None:
    venues = read_profile(VENUES, "venues.toml")
    assert not vocabulary().synonyms_of("setup fee")
    with profiles_in_use((venues,)) as inside:
        assert inside.synonyms_of("installation charge") == ("setup fee", "installation charge")
        assert vocabulary() is inside
    assert not vocabulary().synonyms_of("setup fee")
    (free,) = analyze_query("the venue over $500").constraints
    configured = ExtractionConfig(profiles=(venues,))
    (bound,) = analyze_query("the venue over $500", configured).constraints
    assert free.label == "venue" and bound.label is None  # a document noun names no quantity


def test_recurring_quantities_read_a_unit_and_reported_ones_a_period() -> None:
    v = builtin_vocabulary()
    assert v.recurring("rent") and v.recurring("premium") and v.recurring("setup fee")
    assert not v.recurring("revenue") and not v.recurring("net income")
    assert not v.recurring("annual revenue")  # by its head noun
    (rent,) = analyze_query("monthly rent under $2,000").constraints
    (revenue,) = analyze_query("annual revenue over $4 billion").constraints
    assert (rent.label, rent.period_unit) == ("rent", "month")
    assert (revenue.label, revenue.period_unit, revenue.period_part) == ("revenue", None, "full")


def test_a_profile_is_hashable_and_equal_by_its_records() -> None:
    one, two = read_profile(VENUES, "a"), read_profile(VENUES, "b")
    assert isinstance(one, Profile) and hash(one) == hash(two)


def test_a_separate_quantity_holds_its_own_names_not_the_head_it_ends_in() -> None:
    marina = read_profile(
        {
            "name": "marina",
            "quantities": [
                {"name": "mooring fee", "synonyms": ["berth fee"]},
                {"name": "launch fee", "synonyms": ["ramp fee"], "separate": True},
            ],
        },
        "marina.toml",
    )
    assert "fee" in label_keys("Boat launch fee")  # the built-in profiles: a fee
    with profiles_in_use((marina,)):
        keys = label_keys("Boat launch fee")
        assert "launch fee" in keys and "fee" not in keys
        assert "fee" not in label_keys("Ramp fee")
        assert "fee" in label_keys("Mooring fee")  # not marked: a kind of fee
    assert "fee" in label_keys("Boat launch fee")  # the cache follows the profiles in use


def test_a_totalled_noun_is_a_document_noun_and_its_total_names_read_the_noun() -> None:
    own = read_profile(
        {"name": "bids", "totalled_nouns": ["Tenders"], "total_names": ["{noun} sum", "total"]},
        "here",
    )
    other = read_profile(
        {"name": "more", "totalled_nouns": ["tender", "invoice"], "total_names": ["net"]},
        "there",
    )
    v = Vocabulary([own, other])
    assert "tender" in v.document_nouns
    assert v.totals_of("tenders") == ("tender sum", "total", "net")
    assert v.totals_of("invoice") == ("net",)  # only the names of the profiles that list it
    assert v.totals_of("policy") == ()
    refused = r"here: invalid profile: total_names: total name '\{kind\} total': only"
    with pytest.raises(ConfigError, match=refused):
        read_profile({"name": "x", "total_names": ["{kind} total"]}, "here")
