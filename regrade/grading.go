package regrade

import (
	"errors"
	"fmt"

	"github.com/evalmd/evalmd/internal/setting"
	"github.com/evalmd/evalmd/result"
)

// setGrading gives each question of f, read from path, the grading mode
// resolved for it, as a run resolves it: the command's layers (config,
// flags) with the file's sheet meta and the question's own meta between
// (a question's meta holds its sheet's, LIME's cascade: a value equal to
// the sheet's is the sheet's). With no source setting one, a question
// keeps the mode a flag gave it (result.Question.SetGrading), and kept
// counts those whose mode is not the default. A mode that is none is that
// question's error, by index.
func setGrading(path string, f *result.File, layers []setting.Layer) (bad map[int]error, kept int) {
	ls := make([]setting.Layer, 0, len(layers)+2)
	for _, l := range layers {
		ls = append(ls, l.Only("grading"))
	}
	sheetMeta := setting.Layer{Source: setting.SheetMeta, File: path, Values: f.Sheet.MetaData}.Only("grading")
	ls = append(ls, sheetMeta, setting.Layer{})
	for i := range f.Questions {
		q := &f.Questions[i]
		own := setting.Layer{Source: setting.QuestionMeta, File: path, Values: q.MetaData}.Only("grading")
		if v, ok := own.Values["grading"]; ok && v == sheetMeta.Values["grading"] {
			own.Values = nil
		}
		ls[len(ls)-1] = own
		v, err := setting.Resolve(q.Name, nil, ls...)
		if err != nil {
			// Said of the question at its file (UngradedAt): the value
			// and what was wanted.
			var se *setting.Error
			if errors.As(err, &se) {
				err = fmt.Errorf("%s %s: %q %s", se.Origin.Source, se.Name, se.Value, se.Why)
			}
			if bad == nil {
				bad = map[int]error{}
			}
			bad[i] = err
			continue
		}
		from := ""
		if o, ok := v.From["grading"]; ok {
			from = o.Source.String()
		}
		if q.SetGrading(v.Grading, from) && q.Liberal() {
			kept++
		}
	}
	return bad, kept
}
