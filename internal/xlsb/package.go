package xlsb

import (
	"archive/zip"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
)

// Safety limits. A .xlsb is a zip, so a few kilobytes can claim gigabytes
// once inflated; these bounds turn such input into an error wrapping
// ErrLimit before memory runs out.
const (
	// MaxPartSize is the largest uncompressed part (one file inside the
	// zip) the reader inflates.
	MaxPartSize = 512 << 20
	// MaxRatio is the largest uncompressed/compressed size ratio accepted
	// for a part bigger than ratioFloor. Real sheet data compresses around
	// 5-50x; a bomb compresses thousands of times.
	MaxRatio = 1000
	// MaxCells bounds the dense grid Rows builds (rows x columns), about
	// 470 MiB of Cell values.
	MaxCells = 1 << 23

	// ratioFloor exempts small parts from the ratio check: a run of a
	// few hundred equal records legitimately compresses very well.
	ratioFloor = 1 << 20
)

// ErrLimit is wrapped by every error that refuses input for passing one of
// the safety limits (MaxPartSize, MaxRatio, MaxCells).
var ErrLimit = errors.New("safety limit exceeded")

// pkg is the zip container with case-insensitive part lookup: OPC part
// names compare case-insensitively and writers differ in the case they use.
type pkg struct {
	parts map[string]*zip.File
}

func newPkg(zr *zip.Reader) *pkg {
	p := &pkg{parts: make(map[string]*zip.File, len(zr.File))}
	for _, f := range zr.File {
		name := strings.ToLower(strings.TrimPrefix(f.Name, "/"))
		if _, dup := p.parts[name]; !dup {
			p.parts[name] = f
		}
	}
	return p
}

func (p *pkg) has(name string) bool {
	_, ok := p.parts[strings.ToLower(name)]
	return ok
}

// read inflates one part within the limits. Checking the size the zip
// header claims is enough: archive/zip fails a part whose data inflates
// past that claim (TestLimits checks it).
func (p *pkg) read(name string) ([]byte, error) {
	f, ok := p.parts[strings.ToLower(name)]
	if !ok {
		return nil, fmt.Errorf("part %s: missing from the zip", name)
	}
	if limit := partLimit(f.CompressedSize64); f.UncompressedSize64 > limit {
		return nil, fmt.Errorf("part %s: %d bytes uncompressed from %d compressed: %w (at most %d bytes, and %d times the compressed size past %d bytes)",
			name, f.UncompressedSize64, f.CompressedSize64, ErrLimit, MaxPartSize, MaxRatio, ratioFloor)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("part %s: %w", name, err)
	}
	defer rc.Close()
	// Preallocating the claimed size is safe: the claim is bounded above.
	buf := make([]byte, f.UncompressedSize64)
	if _, err := io.ReadFull(rc, buf); err != nil {
		return nil, fmt.Errorf("part %s: inflating: %w", name, err)
	}
	// Reading one byte more makes archive/zip check the CRC and that the
	// data ends where the header says.
	if n, err := rc.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		if err == nil || err == io.EOF {
			err = errors.New("data longer than its header says")
		}
		return nil, fmt.Errorf("part %s: inflating: %w", name, err)
	}
	return buf, nil
}

// partLimit is the most bytes a part of the given compressed size may
// inflate to.
func partLimit(compressed uint64) uint64 {
	if compressed > MaxPartSize/MaxRatio {
		return MaxPartSize
	}
	return max(compressed*MaxRatio, ratioFloor)
}

// rel is one OPC relationship with its target resolved to a part name.
type rel struct {
	id, typ, target string
	external        bool
}

// relsOf reads the relationships of part src (for "xl/workbook.bin" that is
// "xl/_rels/workbook.bin.rels"; for "" the package's "_rels/.rels"). A
// missing rels part means no relationships.
func (p *pkg) relsOf(src string) ([]rel, error) {
	dir, file := path.Split(src)
	name := dir + "_rels/" + file + ".rels"
	if !p.has(name) {
		return nil, nil
	}
	data, err := p.read(name)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Rels []struct {
			ID         string `xml:"Id,attr"`
			Type       string `xml:"Type,attr"`
			Target     string `xml:"Target,attr"`
			TargetMode string `xml:"TargetMode,attr"`
		} `xml:"Relationship"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("part %s: %w", name, err)
	}
	out := make([]rel, 0, len(doc.Rels))
	for _, r := range doc.Rels {
		ext := strings.EqualFold(r.TargetMode, "External")
		t := r.Target
		if !ext {
			// Targets are relative to the source part's folder unless
			// they start with "/", which is the package root.
			if strings.HasPrefix(t, "/") {
				t = path.Clean(t)[1:]
			} else {
				t = path.Join(dir, t)
			}
		}
		out = append(out, rel{id: r.ID, typ: r.Type, target: t, external: ext})
	}
	return out, nil
}

// relType reports whether a relationship type URI names kind (its last path
// element). Transitional and Strict OOXML use different URI prefixes.
func relType(uri, kind string) bool {
	return strings.EqualFold(path.Base(uri), kind)
}
