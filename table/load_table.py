"""Load tables handed over by evalmd (package table) as pandas DataFrames.

Debian 12 has no pyarrow, so pandas there cannot read parquet. evalmd reads
each parquet table in Go and writes beside it (or into a folder of its own)
a hand-over file, NAME + ".evalmd.json"; ``load`` turns it into the DataFrame
pyarrow's ``Table.to_pandas()`` gives for the parquet file, with pandas and
numpy alone.

    from evalmd_table import load, install
    df = load("all.parquet")   # the hand-over beside it, or all.parquet.evalmd.json itself
    install()                  # from now on pd.read_parquet("all.parquet") does the same
"""

import datetime
import json
import os

import numpy as np
import pandas as pd

SUFFIX = ".evalmd.json"
_EPOCH = datetime.date(1970, 1, 1)
_NAT = np.iinfo(np.int64).min


def _zone(name):
    if name[0] in "+-" and len(name) == 6:
        import pytz

        minutes = int(name[1:3]) * 60 + int(name[4:6])
        return pytz.FixedOffset(-minutes if name[0] == "-" else minutes)
    return name


def _objects(values):
    out = np.empty(len(values), dtype=object)
    for i, v in enumerate(values):
        out[i] = v
    return out


def _array(col, values):
    """The numpy array to_pandas makes of a column (or of one list)."""
    kind, has_null = col["type"], col["has_null"]
    if kind == "int":
        if has_null:
            return np.array([np.nan if v is None else float(v) for v in values], dtype="float64")
        return np.array(values, dtype=col["dtype"])
    if kind == "float":
        return np.array([np.nan if v is None else float(v) for v in values], dtype=col["dtype"])
    if kind == "bool":
        if has_null:
            return _objects(values)
        return np.array(values, dtype=bool)
    if kind == "string":
        return _objects(values)
    if kind == "date":
        return _objects([None if v is None else _EPOCH + datetime.timedelta(days=v) for v in values])
    if kind == "timestamp":
        return np.array([_NAT if v is None else v for v in values], dtype="int64").view("M8[ns]")
    if kind == "list":
        return _objects([None if v is None else _array(col["elem"], v) for v in values])
    raise ValueError("evalmd_table: unknown column type %r" % kind)


def _series(col, index):
    s = pd.Series(_array(col, col["values"]), index=index, name=col["name"], copy=False)
    if col["type"] == "timestamp" and col.get("zone"):
        s = s.dt.tz_localize("UTC").dt.tz_convert(_zone(col["zone"]))
    return s


def _read(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    if not isinstance(doc, dict) or doc.get("evalmd_table") != 1:
        raise ValueError("%s: not an evalmd table hand-over (version 1)" % path)
    rows = doc["rows"]
    ix = doc.get("index")
    if ix is None:
        index = pd.RangeIndex(rows)
    elif "range" in ix:
        start, stop, step = ix["range"]
        index = pd.RangeIndex(start, stop, step, name=ix.get("name"))
    else:
        index = pd.Index(_series(ix, pd.RangeIndex(rows)), name=ix.get("name"))
    cols = doc["columns"]
    if not cols:
        return pd.DataFrame(index=index)
    df = pd.concat([_series(c, index) for c in cols], axis=1)
    df.columns = pd.Index([c["name"] for c in cols], dtype=object)
    return df


def handover_path(path, handover_dir=None):
    """The hand-over file of the table at path: path itself when it ends in
    SUFFIX, else its base name + SUFFIX in handover_dir (default: path's
    folder). None when there is no such file."""
    path = os.fspath(path)
    if path.endswith(SUFFIX):
        return path
    folder = os.path.dirname(path) if handover_dir is None else os.fspath(handover_dir)
    p = os.path.join(folder, os.path.basename(path) + SUFFIX)
    return p if os.path.isfile(p) else None


def load(path, handover_dir=None):
    """The DataFrame of the table at path: its hand-over (see handover_path)
    if there is one, else pandas' own reader (.csv, .tsv, .jsonl, .parquet)."""
    h = handover_path(path, handover_dir)
    if h is not None:
        return _read(h)
    ext = os.path.splitext(os.fspath(path))[1].lower()
    if ext == ".tsv":
        return pd.read_csv(path, sep="\t")
    if ext == ".parquet":
        return _pandas_read_parquet(path)
    if ext in (".jsonl", ".json"):
        return pd.read_json(path, lines=True)
    return pd.read_csv(path)


_pandas_read_parquet = pd.read_parquet


def install(handover_dir=None):
    """Make pd.read_parquet(path, columns=None, ...) read path's hand-over
    when it has one (other arguments are ignored then), else call pandas'
    own read_parquet."""

    def read_parquet(path, engine="auto", columns=None, *args, **kwargs):
        h = None
        if isinstance(path, (str, os.PathLike)):
            h = handover_path(path, handover_dir)
        if h is None:
            return _pandas_read_parquet(path, engine, columns, *args, **kwargs)
        df = _read(h)
        return df if columns is None else df[list(columns)]

    read_parquet.__doc__ = _pandas_read_parquet.__doc__
    pd.read_parquet = read_parquet
