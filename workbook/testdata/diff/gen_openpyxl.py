import random, datetime, sys, os
import openpyxl
from openpyxl.utils import get_column_letter
out = sys.argv[1]; n = int(sys.argv[2]); seed = int(sys.argv[3])
rnd = random.Random(seed)
os.makedirs(out, exist_ok=True)
STRS = ["2020-01-05", "2021/3/4", "NaT", "20200105", "2020-01-05 10:00", "a", "b", "abc", "x y", "NA", "null", "", " ", "TRUE", "false", "True", "1", "2.5", "1e3", " 7 ", "-3", "inf",
        "nan", "N/A", "héllo", "日本語", "line\nbreak", "tab\there", "long text " * 8, "0x7", "1,000", "12abc", "+5", ".5", "5."]
FMTS = ["General", "0.00", "yyyy-mm-dd", "dd/mm/yyyy hh:mm", "h:mm:ss", "[h]:mm:ss", "0%", "mm:ss", "d-mmm", "@", '"x"0', "[Red]0.0"]
def rval(kind):
    if kind == "int": return rnd.choice([0, 1, -1, 7, 42, 123456, 10**9, -10**7, 2**40])
    if kind == "float": return rnd.choice([0.5, -1.25, 3.14159265, 1e-7, 1e7, 1.5e12, 2.0, 1e-4, 123.456, 0.1+0.2, 1e20, -0.0, 99999.99, 1234567.891])
    if kind == "str": return rnd.choice(STRS)
    if kind == "bool": return rnd.choice([True, False])
    if kind == "date": return datetime.datetime(rnd.choice([1900, 1950, 2000, 2020, 2262, 1700]), rnd.randint(1,12), rnd.randint(1,28), rnd.choice([0,0,0,13]), rnd.choice([0,30]), rnd.choice([0,0,15]), rnd.choice([0,0,500000]))
    if kind == "time": return datetime.time(rnd.randint(0,23), rnd.randint(0,59), rnd.randint(0,59))
    if kind == "none": return None
    if kind == "err": return "#DIV/0!"
kinds = ["int", "float", "str", "bool", "date", "time", "none", "err"]
for i in range(n):
    wb = openpyxl.Workbook()
    for si in range(rnd.randint(1, 3)):
        ws = wb.active if si == 0 else wb.create_sheet()
        ws.title = f"S{si}_{rnd.randint(0,99)}"
        nrows = rnd.choice([0, 1, 2, 3, 5, 10, 30])
        ncols = rnd.choice([1, 1, 2, 3, 5, 8])
        r0 = rnd.choice([1, 1, 1, 2, 4]); c0 = rnd.choice([1, 1, 1, 2, 3])
        colkinds = [rnd.choice(kinds[:6]) for _ in range(ncols)]
        for r in range(nrows):
            for c in range(ncols):
                k = colkinds[c] if rnd.random() < 0.75 else rnd.choice(kinds)
                if r == 0 and rnd.random() < 0.6: k = rnd.choice(["str", "str", "int", "none", "float", "date", "bool"])
                v = rval(k)
                if v is None: continue
                cell = ws.cell(row=r0 + r, column=c0 + c)
                if k == "err":
                    cell.value = v; cell.data_type = "e"
                else:
                    cell.value = v
                if k in ("int", "float") and rnd.random() < 0.3:
                    cell.number_format = rnd.choice(FMTS)
        if nrows > 2 and ncols > 1 and rnd.random() < 0.2:
            ws.merge_cells(start_row=r0+1, start_column=c0, end_row=r0+2, end_column=c0+1)
    if rnd.random() < 0.1:
        wb.epoch = openpyxl.utils.datetime.CALENDAR_MAC_1904
    wb.save(os.path.join(out, f"g{seed}_{i}.xlsx"))
