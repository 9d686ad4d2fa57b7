"""models/installed.py: folders the catalog no longer names are found, and set-up says so."""

from rewind.install import steps
from rewind.models import installed, specs


def test_a_folder_rewind_installed_that_no_model_names_is_reported_not_deleted(tmp_path):
    known = next(iter(specs.load_specs().llm))
    for name, size in ((known, 10), ("smollm2-135m-instruct-q4_1", 3_000_000)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "model.gguf").write_bytes(b"x" * size)
        (tmp_path / name / installed.MARKER).write_text("{}")
    (tmp_path / "my-notes").mkdir()  # no marker: not Rewind's, never named
    (tmp_path / "my-notes" / "a.txt").write_text("mine")

    found = installed.unused_folders(tmp_path)
    assert [(p.name, size) for p, size in found] == [("smollm2-135m-instruct-q4_1", 3_000_002)]

    lines: list[str] = []
    steps.say_unused(lines.append, tmp_path)
    assert lines == [f"  smollm2-135m-instruct-q4_1: no longer used by Rewind (3 MB); delete "
                     f"{tmp_path / 'smollm2-135m-instruct-q4_1'} to free the space"]
    assert (tmp_path / "smollm2-135m-instruct-q4_1" / "model.gguf").exists()
