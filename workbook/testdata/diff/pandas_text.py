import sys, os, glob, pandas as pd
for p in sorted(glob.glob(os.path.join(sys.argv[1], "*.xlsx"))):
    try:
        xls = pd.ExcelFile(p)
        text = ""
        for name in xls.sheet_names:
            df = xls.parse(name)
            text += f"Sheet name: {name}\n{df.to_string(index=False)}\n\n"
        open(p + ".txt", "w", encoding="utf-8").write(text)
    except Exception as e:
        open(p + ".error", "w").write(repr(e))
