"""The privacy export's CSV: what a Spanish Excel opens as it is (BOM, ``;``, CRLF), every
cell read back, formulas neutralised, accents kept (Hypothesis)."""

import csv
import io

from hypothesis import given, settings
from hypothesis import strategies as st

from agency_site.desk.inbox_export import FORMULA_START, excel_cell
from agency_site.desk.privacy_export import spanish_csv

TEXT = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs",), exclude_characters="\x00"),
    max_size=30,
)


@settings(max_examples=200)
@given(rows=st.lists(st.lists(TEXT, min_size=1, max_size=4), min_size=1, max_size=5))
def test_a_spanish_csv_reads_back_every_cell_with_formulas_neutralised(rows) -> None:
    width = max(len(row) for row in rows)
    rows = [row + [""] * (width - len(row)) for row in rows]
    raw = spanish_csv([f"c{n}" for n in range(width)], rows)
    assert raw.startswith("\ufeff".encode())
    text = raw.decode("utf-8-sig")
    assert text.endswith("\r\n")
    back = list(csv.reader(io.StringIO(text, newline=""), delimiter=";"))
    assert back[0] == [f"c{n}" for n in range(width)]
    for sent, read in zip(rows, back[1:], strict=True):
        for value, cell_read in zip(sent, read, strict=True):
            assert not cell_read.startswith(FORMULA_START)
            assert cell_read == ("'" + value if value.startswith(FORMULA_START) else value)
            assert excel_cell(value) == cell_read
