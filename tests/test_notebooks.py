"""Every notebook's code cells run against the installed package (no Jupyter needed)."""
import json
import pathlib

import pytest

NOTEBOOKS = sorted((pathlib.Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_code_cells_execute(path, capsys):
    nb = json.loads(path.read_text())
    ns: dict = {}
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            src = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
            assert "import reference" in src or "from reference" in src or ns, "notebooks import from the package"
            exec(compile(src, f"{path.name}", "exec"), ns)
    out = capsys.readouterr().out
    assert "fullyadaptive" in out  # each notebook prints the version line first


def test_there_is_a_notebook():
    assert NOTEBOOKS
