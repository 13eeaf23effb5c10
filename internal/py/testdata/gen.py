# Writes python.json, the reference internal/py is tested against:
#   /usr/bin/python3 internal/py/testdata/gen.py > internal/py/testdata/python.json
# (Debian 12's Python 3.11, Unicode 14.0). Deterministic: a fixed seed.
import json, random, struct, sys, unicodedata

def bits(f):
    return struct.unpack("<Q", struct.pack("<d", f))[0]

def ranges(pred):
    out, start = [], None
    for c in range(0x110000):
        if pred(c):
            if start is None:
                start = c
        elif start is not None:
            out.append([start, c - 1]); start = None
    if start is not None:
        out.append([start, 0x10FFFF])
    return out

rnd = random.Random(13)
assigned = lambda c: unicodedata.category(chr(c)) != "Cn"
out = {
    "python": sys.version.split()[0],
    "unicode": unicodedata.unidata_version,
    "unassigned": ranges(lambda c: not assigned(c)),
    "space": ranges(lambda c: chr(c).isspace()),
    "digit": ranges(lambda c: chr(c).isdigit()),
    "lower": [{"c": c, "l": chr(c).lower()} for c in range(0x110000) if assigned(c) and chr(c).lower() != chr(c)],
}

words = ["ΑΣ", "ΣΑΣ Σ", "ὈΔΥΣΣΕΎΣ", "Σ", "ΑΣ.", "ΑΣ'Α", "Α\u0301Σ", "ΑΣ\u0301", "1Σ", "ΑΣ1", "ΑΣΑ", "İSTANBUL", "ǅ", "Key-Name", "ΜΑΣ:", "ΑΣ\u00adΒ"]
for _ in range(300):
    words.append("".join(rnd.choice("ΑΣσ .'\u0301\u00adaZİ1-") for _ in range(rnd.randint(1, 8))))
out["lower_strings"] = [[w, w.lower()] for w in words]
out["strip"] = [[w, w.strip()] for w in [" a ", "\x1ca\x1f", "\u3000x\u00a0", "\u200bx\u200b", "\x85y\u2028", "\ta b\n"]]

floats = [0.0, -0.0, 1.0, 0.1, 1e16, 1e15, 9999999999999998.0, 1e-4, 1e-5, 0.00012345, 123456789.0, 1.5e300, 5e-324,
          float("inf"), float("-inf"), float("nan"), 2.5, 0.5, 1.25, 100.0, 1e22, 123.456, -7.0e-7]
for _ in range(400):
    floats.append(struct.unpack("<d", struct.pack("<Q", rnd.getrandbits(64)))[0])
    floats.append(round(rnd.uniform(-1e6, 1e6), rnd.randint(0, 8)))
    floats.append(rnd.uniform(-1, 1) * 10 ** rnd.randint(-20, 20))
out["repr"] = [[bits(f), repr(f)] for f in floats]
out["g"] = [[bits(f), format(f, "g")] for f in floats]
fmts = []
for f in floats[:1000]:
    p = rnd.randint(0, 12)
    sp = rnd.random() < 0.5
    fmts.append({"b": bits(f), "p": p, "s": sp, "f": format(f, (" " if sp else "") + ".%df" % p), "e": format(f, (" " if sp else "") + ".%de" % p)})
out["fixed_exp"] = fmts

def pyfloat(s):
    try:
        return repr(float(s))
    except ValueError:
        return None
fl = ["1", " 1.5 ", "1_000", "1__0", "_1", "1_", "inf", "-Infinity", "nAn", "0x10", "1e5", "1e", ".5", "5.", ".", "١٢٣", "\x1c2\x1f",
      "1e400", "-1e400", "1e-400", "+.5e-3", "1_0.0_1", "1.5_", "²", "\u00a012", "12\u200b", "", " ", "nan1", "in f", "1,5"]
out["float"] = [[s, pyfloat(s)] for s in fl]
json.dump(out, sys.stdout, ensure_ascii=True, separators=(",", ":"))
