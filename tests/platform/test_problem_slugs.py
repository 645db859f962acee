"""sync_problems keeps names as written and gives each problem a slug, unique among current problems:
a suite laid out like SOL-ExecBench's dataset is stored with its subsets as categories, and a name
whose slug is taken (in the suite, or by a stored problem) is refused naming both, storing nothing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from django.core.management import CommandError
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from leaderboard.models import Category, Problem
from tests.conftest import SCALE_SHIFT, SOLX_EXAMPLES
from tests.platform import factories
from tests.platform.test_sync_problems import sync

FLUX = "black-forest-labs_FLUX.1-schnell_flux_rope_apply_rotation"
FLUX_SLUG = "black-forest-labs_flux-1-schnell_flux_rope_apply_rotation"
EXAMPLES = SOLX_EXAMPLES


def named(root: Path, folder: str, name: str) -> Path:
    """The fixture problem under another name at root/folder, with no category of its own."""
    directory = root / folder
    shutil.copytree(SCALE_SHIFT, directory)
    data = json.loads((directory / "definition.json").read_text())
    data["name"] = name
    data.pop("category")
    (directory / "definition.json").write_text(json.dumps(data))
    return directory


@pytest.mark.django_db
def test_a_dataset_layout_is_stored_with_names_as_written_and_subsets_as_categories(tmp_path: Path) -> None:
    root = tmp_path / "benchmark"
    named(root, f"L1/{FLUX}", FLUX)
    named(root, "L2/fused", "Fused Add + RMSNorm")
    named(root, "Quant/fp8", "fp8_quant")
    named(root, "FlashInfer-Bench/gqa", "gqa_paged_decode")
    out, _ = sync(root)
    assert sorted(out.splitlines()) == sorted([
        f"{FLUX} (slug {FLUX_SLUG}): created", "Fused Add + RMSNorm (slug fused-add-rmsnorm): created",
        "fp8_quant: created", "gqa_paged_decode: created"])
    stored = {p.name: (p.slug, p.category.slug) for p in Problem.objects.select_related("category")}
    assert stored == {FLUX: (FLUX_SLUG, "l1"), "Fused Add + RMSNorm": ("fused-add-rmsnorm", "l2"),
                      "fp8_quant": ("fp8_quant", "quant"), "gqa_paged_decode": ("gqa_paged_decode",
                                                                                "flashinfer-bench")}
    assert Category.objects.get(slug="flashinfer-bench").name == "FlashInfer-Bench"
    assert sync(root)[0].count("unchanged (version 1)") == 4


@pytest.mark.django_db
@pytest.mark.skipif(not EXAMPLES.is_dir(), reason=f"no SOL-ExecBench examples at {EXAMPLES}")
def test_their_published_examples_sync_as_a_suite(tmp_path: Path) -> None:
    root = tmp_path / "benchmark" / "L2"
    for definition in sorted(EXAMPLES.glob("*/*/definition.json")):
        name = json.loads(definition.read_text())["name"]
        if not (root / name).exists():  # some problems are published in two languages
            shutil.copytree(definition.parent, root / name)
    sync(tmp_path / "benchmark")
    rows = list(Problem.objects.select_related("category"))
    assert {row.name for row in rows} == {path.name for path in root.iterdir()}
    assert len(rows) == 9 and {row.category.name for row in rows} == {"L2"}


@pytest.mark.django_db
def test_names_of_one_suite_making_one_slug_store_nothing(tmp_path: Path) -> None:
    named(tmp_path / "suite", "a", "RMSNorm")
    named(tmp_path / "suite", "b", "rmsnorm")
    named(tmp_path / "suite", "c", "unrelated")
    with pytest.raises(CommandError) as info:
        sync(tmp_path / "suite")
    assert "'RMSNorm'" in str(info.value) and "'rmsnorm'" in str(info.value)
    assert "same slug 'rmsnorm'" in str(info.value)
    assert not Problem.objects.exists()


@pytest.mark.django_db
def test_a_new_name_taking_a_stored_problems_slug_stores_nothing(tmp_path: Path) -> None:
    named(tmp_path / "first", "a", "Scale.Shift")
    sync(tmp_path / "first")
    named(tmp_path / "second", "a", "good_one")
    clash = named(tmp_path / "second", "b", "scale-shift")
    with pytest.raises(CommandError) as info:
        sync(tmp_path / "second")
    message = str(info.value)
    assert str(clash) in message
    assert "'scale-shift' has the slug 'scale-shift' of the stored problem 'Scale.Shift' (v1)" in message
    assert list(Problem.objects.values_list("name", flat=True)) == ["Scale.Shift"]


@pytest.mark.django_db(transaction=True)
def test_problems_stored_before_slugs_take_their_name_as_slug() -> None:
    factories.make_named_problem("gemm_bf16"), factories.make_named_problem("rms_norm_2")
    before, after = [("leaderboard", "0008_workload_reference_flops")], [("leaderboard", "0009_problem_slug")]
    executor = MigrationExecutor(connection)
    try:
        executor.migrate(before)
        executor = MigrationExecutor(connection)
        executor.migrate(after)
        slugs = dict(Problem.objects.values_list("name", "slug"))
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
    assert slugs == {"gemm_bf16": "gemm_bf16", "rms_norm_2": "rms_norm_2"}
