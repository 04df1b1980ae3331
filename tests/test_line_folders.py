"""Path names said by their folder: each folder once with its number of rows, every name after it."""

from __future__ import annotations

import re

from tokenlab.optimizers.lines.folders import FolderLimits, are_paths, by_folder, shared_ending, shared_root


def test_paths_are_one_word_with_a_slash_and_command_lines_are_not() -> None:
    assert are_paths(["/usr/lib/libc.so.6", "/dev/null", "socket:[123]", "/srv/app.db"])
    assert not are_paths(["/usr/bin/python3 -m http.server", "/usr/sbin/sshd -D", "/bin/sh -c x"])
    assert not are_paths(["worker1", "worker2", "/opt/x"])


def test_each_folder_is_said_once_with_its_rows_and_every_name() -> None:
    names = ["/usr/lib/libz.so.1", "/dev/null", "/usr/lib/libssl.so.3", "/dev/null", "/dev/null", "pipe"]
    assert by_folder(names) == "/dev/ (3): null ×3; /usr/lib/ (2): libz.so.1, libssl.so.3; other (1): pipe"


def test_a_long_prefix_several_folders_share_is_said_once() -> None:
    tree = "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/"
    folders = [f"{tree}numpy/random/", f"{tree}numpy/fft/", f"{tree}scipy/linalg/", "/usr/lib/"]
    assert shared_root(folders) == tree
    said = by_folder([f"{folder}a.so" for folder in folders])
    assert said.startswith(f"(… = {tree}) ") and said.count(tree) == 1
    assert (
        "…/numpy/fft/ (1): a.so; …/numpy/random/ (1): a.so; …/scipy/linalg/ (1): a.so; /usr/lib/ (1): a.so"
        in said
    )
    assert shared_root(["/a/b/", "/a/c/"]) == ""  # too short to be worth a name


def test_an_ending_is_said_once_only_when_every_name_of_the_folder_has_it() -> None:
    tag = ".cpython-311-x86_64-linux-gnu.so"
    assert shared_ending([f"_json{tag}", f"math{tag}", f"_csv{tag}"]) == tag
    assert shared_ending([f"_json{tag}", f"math{tag}", "libz.so.1"]) == ""
    assert shared_ending(["a.so", "b.so"]) == ""  # short: nothing to save
    said = by_folder([f"/lib/dynload/{name}{tag}" for name in ("_json", "math", "_csv")])
    assert said == f"/lib/dynload/ (3, each ending {tag}): _json, math, _csv"


def test_names_differing_in_one_number_are_said_once() -> None:
    said = by_folder([f"/var/log/app/part-{i:03}.log" for i in range(1, 41)])
    assert said == "/var/log/app/ (40): part-{001…040}.log"


def test_past_the_names_listed_every_folder_keeps_its_count() -> None:
    names = [
        f"/data/{folder}/{word}{folder}.bin" for folder in ("a", "b", "c") for word in ("x", "y", "z", "w")
    ]
    said = by_folder(names, FolderLimits(names_listed=5))
    counts = [int(count) for count in re.findall(r"/ \((\d+)", said)]
    assert counts == [4, 4, 4]
    assert said.count("… +") == 2 and "/data/c/ (4): … +4 names" in said
