# Writes pandas.json, the reference internal/pandasdate is tested against,
# with Debian 12's pandas 1.5.3 (apt-get install python3-pandas):
#   /usr/bin/python3 internal/pandasdate/testdata/gen.py > internal/pandasdate/testdata/pandas.json
# For each string: "iso" is pandas' ISO 8601 parser as the DataFrame
# constructor runs it (array_to_datetime with require_iso8601): the
# wall-clock datetime and whether a zone was named, or null when refused;
# "date" is pd.to_datetime(s).date() as "YYYY-MM-DD", "NaT", or the
# exception's class name. Strings whose result depends on the clock (times
# alone, two-digit years, now, today) are left out.
import json, sys
import numpy as np, pandas as pd
from pandas._libs import tslib

strings = [line.rstrip("\n") for line in open(sys.argv[1] if len(sys.argv) > 1 else __file__.replace("gen.py", "strings.txt"), encoding="utf-8")]

def iso(s):
    try:
        r, tz = tslib.array_to_datetime(np.array([s], dtype=object), require_iso8601=True, errors="raise")
    except Exception:
        return None
    t = pd.Timestamp(r[0])
    if t is pd.NaT:
        return {"nat": True}
    if tz is not None:
        t = t.tz_localize("UTC").tz_convert(tz).tz_localize(None)
    return {"wall": t.strftime("%Y-%m-%d %H:%M:%S.%f"), "local": tz is not None}

def date(s):
    try:
        d = pd.to_datetime(s)
    except Exception as e:
        return type(e).__name__
    if d is pd.NaT:
        return "NaT"
    return d.date().isoformat()

out = [{"s": s, "iso": iso(s), "date": date(s)} for s in strings]
json.dump({"pandas": pd.__version__, "cases": out}, sys.stdout, ensure_ascii=True, indent=0)
