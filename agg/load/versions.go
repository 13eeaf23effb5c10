package load

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/evalmd/evalmd/internal/readfile"
	"github.com/evalmd/evalmd/result"
)

// fileVersion is what agg reads of an output file to tell versions of its
// sheet apart: the sheet, the version of its questions (result.File's
// Version: recorded, else computed from the questions) and when its run
// started (the file's modification time when not recorded, as in LIME's).
type fileVersion struct {
	path, sheet, version string
	// parts are the parts of a run split in shards (Data.PartsOf),
	// which the notes name: the file at path is on no disk.
	parts []string
	// when the run started, and when the file was written: runs whose
	// start is recorded alike (LIME's record none; evalmd's before
	// result.CreatedLayout only seconds) are told apart by it.
	when, written time.Time
	dryRun        bool
}

// name is how the notes name the file: its base name, or its parts'
// (JoinParts).
func (a fileVersion) name() string {
	if len(a.parts) == 0 {
		return filepath.Base(a.path)
	}
	names := make([]string, len(a.parts))
	for i, p := range a.parts {
		names[i] = filepath.Base(p)
	}
	return JoinParts(names)
}

// after says whether a's run came after b's.
func (a fileVersion) after(b fileVersion) bool {
	if !a.when.Equal(b.when) {
		return a.when.After(b.when)
	}
	return a.written.After(b.written)
}

// readVersion reads a file's version. A file that records one (evalmd
// writes the sheet first) is read no further than its sheet; one that does
// not is read whole, for SheetVersion over its questions. Errors are left to
// the decoder that reads the file for its rows.
func readVersion(path string) (fileVersion, bool) {
	fv := fileVersion{path: path}
	fh, err := readfile.Open(path)
	if err != nil {
		return fv, false
	}
	defer fh.Close()
	dec := json.NewDecoder(bufio.NewReader(fh))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return fv, false
	}
	var sheet struct {
		Name    string `json:"name"`
		Version string `json:"version"`
		Created string `json:"created"`
		DryRun  bool   `json:"dry_run"`
	}
	var questions []struct {
		Name        string  `json:"name"`
		Question    string  `json:"question"`
		GroundTruth *string `json:"ground_truth"`
	}
	haveSheet := false
	for dec.More() && (!haveSheet || sheet.Version == "") {
		t, err := dec.Token()
		if err != nil {
			return fv, false
		}
		var v any = new(json.RawMessage)
		switch t {
		case "sheet":
			v, haveSheet = &sheet, true
		case "questions":
			v = &questions
		}
		if err := dec.Decode(v); err != nil {
			return fv, false
		}
	}
	fv.sheet, fv.version, fv.dryRun = sheet.Name, sheet.Version, sheet.DryRun
	if fv.version == "" {
		fv.version = result.SheetVersion(len(questions), func(i int) (string, string, *string) {
			q := &questions[i]
			return q.Name, q.Question, q.GroundTruth
		})
	}
	if st, err := fh.Stat(); err == nil {
		fv.written = st.ModTime()
	}
	if fv.when, err = time.Parse(time.RFC3339, sheet.Created); err != nil {
		fv.when = fv.written
	}
	return fv, true
}

// sheetVersions reads the version of every output file and says, for each
// sheet whose files hold more than one version of its questions, which:
// notes, one line per such sheet; with latest, the files of the older
// versions are left out (by path), and the notes say so. Dry runs count
// only with includeDry.
func sheetVersions(paths []string, latest, includeDry bool) (leave map[string]bool, notes []string) {
	var fvs []fileVersion
	for _, p := range paths {
		if fv, ok := readVersion(p); ok && (!fv.dryRun || includeDry) {
			fvs = append(fvs, fv)
		}
	}
	return versions(fvs, latest)
}

// fileVersionOf is the version of a file Load read, as readVersion reads
// it (without --latest-version, agg tells versions apart in its one
// read): of the file at path whose sheet record is sheet and the version
// of its questions version; parts are its parts when it is a run split in
// shards, the last written of which is when it was.
func fileVersionOf(path string, parts []string, sheet *result.Sheet, version string) fileVersion {
	fv := fileVersion{path: path, parts: parts, sheet: sheet.Name, version: version, dryRun: sheet.DryRun}
	for _, p := range append([]string{path}, parts...) {
		if st, err := os.Stat(p); err == nil && st.ModTime().After(fv.written) {
			fv.written = st.ModTime()
		}
	}
	var err error
	if fv.when, err = time.Parse(time.RFC3339, sheet.Created); err != nil {
		fv.when = fv.written
	}
	return fv
}

// versions groups files by sheet and says, as sheetVersions, which sheets
// have more than one version and, with latest, which files are left out.
func versions(fvs []fileVersion, latest bool) (leave map[string]bool, notes []string) {
	bySheet := map[string][]fileVersion{}
	var sheets []string
	for _, fv := range fvs {
		if bySheet[fv.sheet] == nil {
			sheets = append(sheets, fv.sheet)
		}
		bySheet[fv.sheet] = append(bySheet[fv.sheet], fv)
	}
	sort.Strings(sheets)
	leave = map[string]bool{}
	for _, s := range sheets {
		files := bySheet[s]
		newest := files[0]
		for _, fv := range files[1:] {
			if fv.after(newest) {
				newest = fv
			}
		}
		type version struct {
			id    string
			files []string
		}
		var versions []*version
		byID := map[string]*version{}
		for _, fv := range files {
			v := byID[fv.version]
			if v == nil {
				v = &version{id: fv.version}
				byID[fv.version] = v
				versions = append(versions, v)
			}
			v.files = append(v.files, fv.name())
		}
		if len(versions) == 1 {
			continue
		}
		// The newest first, the others in the order their files are read.
		sort.SliceStable(versions, func(i, j int) bool { return versions[i].id == newest.version && versions[j].id != newest.version })
		var said []string
		for _, v := range versions {
			said = append(said, fmt.Sprintf("%s (%s)", v.id, runsOf(v.files)))
		}
		if !latest {
			notes = append(notes, fmt.Sprintf("sheet %s: its runs answer %d versions of its questions, counted together as LIME's agg does: %s (the newest), %s; --latest-version counts only the newest",
				s, len(versions), said[0], strings.Join(said[1:], ", ")))
			continue
		}
		for _, fv := range files {
			if fv.version != newest.version {
				leave[fv.path] = true
			}
		}
		notes = append(notes, fmt.Sprintf("sheet %s: counting only the newest version of its questions, %s (--latest-version, or latest_version in evalmd.yaml); left out: %s",
			s, said[0], strings.Join(said[1:], ", ")))
	}
	return leave, notes
}

// runsOf says how many runs a version has and names a few of their files.
func runsOf(files []string) string {
	noun := "runs"
	if len(files) == 1 {
		noun = "run"
	}
	shown := files[:min(len(files), 3)]
	more := ""
	if len(files) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(files)-len(shown))
	}
	return fmt.Sprintf("%d %s: %s%s", len(files), noun, strings.Join(shown, ", "), more)
}
