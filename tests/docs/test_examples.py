"""Every Python block in README.md and docs/*.md runs, prints what it shows, leaves nothing.

Each block runs on its own (it must define every name it uses), twice in one empty working
directory (so it is re-runnable), with ``print`` checked against the block's ``#>``
comments by pytest-examples. After the runs the directory must still be empty: a block
that writes files uses a temporary directory or ``:memory:``.

``python -m pytest tests/docs --update-examples`` rewrites the ``#>`` comments from what
the blocks print.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pytest
from pytest_examples import CodeExample, EvalExample, find_examples

ROOT = Path(__file__).resolve().parents[2]


def documents(root: Path) -> list[Path]:
    """The markdown files whose Python blocks must run: the README and every guide."""
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


def examples(root: Path) -> Iterable[CodeExample]:
    """Every ```python (or ```py) block of the documents; other languages are not run."""
    return find_examples(*documents(root))


def example_id(example: CodeExample) -> str:
    """``docs/persistence.md:9`` for a block starting on line 9 of that file."""
    try:
        name = example.path.relative_to(ROOT).as_posix()
    except ValueError:
        name = example.path.name
    return f"{name}:{example.start_line}"


def check_example(example: CodeExample, eval_example: EvalExample, workdir: Path) -> None:
    """Run ``example`` twice in ``workdir``, check its prints, and that it left no files."""
    workdir.mkdir(parents=True, exist_ok=True)
    eval_example.set_config(line_length=100)  # the project's line length: longer prints wrap
    failure = None
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(workdir)
        for run in ("first", "second"):
            try:
                if eval_example.update_examples:
                    eval_example.run_print_update(example)
                else:
                    eval_example.run_print_check(example)
            except Exception as error:  # an error raised by the block's own code
                failure = f"{example_id(example)} failed on its {run} run: {_where(error, example)}"
                break
    if failure is not None:
        # Reported without the traceback: pytest-examples' rewritten frames crash
        # CPython 3.11's traceback printer (StopIteration in _get_code_position).
        pytest.fail(failure, pytrace=False)
    left = sorted(path.name for path in workdir.iterdir())
    assert left == [], f"{example_id(example)} left files behind in the working directory: {left}"


def _where(error: BaseException, example: CodeExample) -> str:
    """The error and the markdown line of the block it was raised on."""
    line = None
    trace = error.__traceback__
    while trace is not None:
        if trace.tb_frame.f_code.co_filename.endswith(f"{example.module_name}.py"):
            line = trace.tb_lineno
        trace = trace.tb_next
    where = f" (line {example.start_line + line} of {example.path.name})" if line else ""
    return f"{type(error).__name__}: {error}{where}"


@pytest.mark.parametrize("example", list(examples(ROOT)), ids=example_id)
def test_documented_example_runs(
    example: CodeExample, eval_example: EvalExample, tmp_path: Path
) -> None:
    check_example(example, eval_example, tmp_path / "cwd")


def _one_example(tmp_path: Path, code: str) -> CodeExample:
    document = tmp_path / "docs" / "broken.md"
    document.parent.mkdir(parents=True, exist_ok=True)
    document.write_text(f"# A guide\n\n```python\n{code}```\n", encoding="utf-8")
    (tmp_path / "README.md").write_text("# Nothing to run\n", encoding="utf-8")
    found = list(examples(tmp_path))
    assert len(found) == 1, "the guide's one block was not found"
    return found[0]


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("print(undefined_name)\n", "NameError: name 'undefined_name' is not defined"),
        ("print(1 + 1)\n#> 3\n", "Print output changed code"),
        ("print('shown')\n", "Print output changed code"),
        ("open('left.txt', 'w').close()\n", "left files behind"),
    ],
    ids=["undefined-name", "wrong-output", "unshown-output", "left-a-file"],
)
def test_a_broken_block_fails(
    code: str, expected: str, eval_example: EvalExample, tmp_path: Path
) -> None:
    example = _one_example(tmp_path, code)
    with pytest.raises((AssertionError, pytest.fail.Exception)) as caught:
        check_example(example, eval_example, tmp_path / "cwd")
    assert expected in str(caught.value)


def test_a_sound_block_passes(eval_example: EvalExample, tmp_path: Path) -> None:
    example = _one_example(tmp_path, "print(1 + 1)\n#> 2\n")
    check_example(example, eval_example, tmp_path / "cwd")


def test_every_guide_is_collected(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "new-guide.md").write_text("```python\nx = 1\n```\n", encoding="utf-8")
    (tmp_path / "docs" / "shell.md").write_text("```bash\nrm -rf /\n```\n", encoding="utf-8")
    (tmp_path / "README.md").write_text("```py\ny = 2\n```\n", encoding="utf-8")
    found = sorted((example.path.name, example.source) for example in examples(tmp_path))
    assert found == [("README.md", "y = 2\n"), ("new-guide.md", "x = 1\n")]
