from releases.splits import split

RECORDS = [{"key": f"s{n}", "label": int(n % 5 == 0), "domain": ("a", "b", "c")[n % 3], "document": f"d{n // 4}"}
           for n in range(400)]


def test_it_splits_65_35_reproducibly_and_disjointly():
    first, report = split(RECORDS, seed=1)
    assert split(RECORDS, seed=1)[0] == first
    assert split(RECORDS, seed=2)[0] != first
    assert set(first) == {r["key"] for r in RECORDS}
    assert (report["train"], report["test"]) == (260, 140)


def test_it_stratifies_by_label_and_domain():
    assignment, report = split(RECORDS, seed=3, stratify=("label", "domain"))
    for label in (0, 1):
        for domain in "abc":
            members = [r for r in RECORDS if r["label"] == label and r["domain"] == domain]
            tested = sum(assignment[r["key"]] == "test" for r in members)
            assert abs(tested - len(members) * 0.35) <= 0.5
    assert report["labels"]["test/1"] == 27  # 27, 27, 26 positives per domain, 35% of each rounds to 9


def test_it_keeps_a_document_on_one_side_when_grouped():
    _, loose = split(RECORDS, seed=4)
    assert loose["documents_on_both_sides"] > 0
    _, grouped = split(RECORDS, seed=4, group="document")
    assert grouped["documents_on_both_sides"] == 0
    assert 0.30 < grouped["test_share"] < 0.40
    assert grouped["grouped_by"] == "document"


def test_sentences_without_a_document_are_split_one_by_one_and_reported():
    # 342 sentences with no source document: grouped, they used to form one "" group and all land in train.
    records = [{"key": f"s{n}", "label": n % 2, "domain": "a", "document": ""} for n in range(342)]
    assignment, report = split(records, seed=5, group="document")
    assert set(assignment.values()) == {"train", "test"}
    assert 0.30 < report["test_share"] < 0.40
    assert report["ungrouped"] == 342
    assert report["documents_on_both_sides"] == 0  # "" is not a document
    _, loose = split(records, seed=5)
    assert loose["documents_on_both_sides"] == 0 and loose["ungrouped"] == 0
    # Mixed: the documented sentences stay together; only the rest are split one by one.
    mixed = RECORDS + [{**record, "key": f"x{record['key']}"} for record in records[:50]]
    _, report = split(mixed, seed=6, group="document")
    assert report["ungrouped"] == 50 and report["documents_on_both_sides"] == 0
