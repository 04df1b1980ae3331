"""The optimizer registry is the one place that knows the families: each folder under
`optimizers/` (but the shared `lines/`) is one row of `FAMILIES`, and each row's folder
holds what the row promises."""

from __future__ import annotations

from importlib import import_module
from pathlib import Path

from tokenlab import optimizers
from tokenlab.classify import classify
from tokenlab.optimizers import FAMILIES, MAPS_INPUT, ContentType, Family, detector_for

FOLDER = Path(optimizers.__file__).parent


def test_every_family_folder_has_one_row_and_every_content_type_one_family() -> None:
    folders = {path.parent.name for path in FOLDER.glob("*/__init__.py")} - {"lines"}
    assert sorted(family.folder for family in FAMILIES) == sorted(folders)
    assert sorted(family.content_type for family in FAMILIES) == sorted(ContentType)


def test_each_family_has_its_detector_and_optimizer() -> None:
    for family in FAMILIES:
        module = import_module(f"{family.package}.optimizer")
        assert callable(detector_for(family))
        assert callable(module.optimize)
        assert not family.maps_input or callable(module.plan)
    assert MAPS_INPUT == {family.content_type for family in FAMILIES if family.maps_input}


def test_text_comes_last_and_recognises_anything() -> None:
    assert FAMILIES[-1] == Family(ContentType.TEXT, "text", reads_mapped=True)
    assert classify(b"").content_type is ContentType.TEXT
    assert classify(b"hello there\n").reason == "no structure recognised: plain text"
