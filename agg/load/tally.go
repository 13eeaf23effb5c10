package load

import "sort"

// Tally is one model's answers to one question Q: N graded, C of them
// right; with every answer counted (Tallies' all), E of them errored and
// U ungraded.
type Tally struct {
	Q          int32
	N, C, E, U int32
}

// Question is the question t tallies, for walks over lists sorted by it.
func (t Tally) Question() int32 { return t.Q }

// Units numbers the distinct questions the way a question is the same
// across epochs and runs: its sheet, its name and which of the file's
// questions of that name it is (LIME lets a name repeat within a sheet;
// those are different questions, not epochs). idx[i] is row i's question,
// -1 when its sheet or name is null.
//
// With truth, a question graded against two ground truths is two
// questions (the gate pairs a question across folders only where its
// truth is the same).
func (d *Data) Units(truth bool) (idx []int32, n int) {
	type ukey struct {
		sheet, name, truth Str
		occ                uint16
	}
	ids := map[ukey]int32{}
	idx = make([]int32, len(d.Rows()))
	for i := range d.Rows() {
		r := &d.Rows()[i]
		if r.Sheet == NoStr || r.Name == NoStr {
			idx[i] = -1
			continue
		}
		k := ukey{sheet: r.Sheet, name: r.Name, truth: NoStr, occ: r.Occ}
		if truth {
			k.truth = r.Truth
		}
		q, ok := ids[k]
		if !ok {
			q = int32(len(ids))
			ids[k] = q
		}
		idx[i] = q
	}
	return idx, len(ids)
}

// Tallies returns each model's answers per question of idx (row i's
// question, -1 for none), sorted by question, of the rows keep keeps:
// the graded answers, or with all every answer (a question answered only
// with errors or without a grade is there too, its N 0).
func (d *Data) Tallies(idx []int32, keep func(row int) bool, all bool) map[Str][]Tally {
	type mq struct {
		m Str
		q int32
	}
	at := map[mq]int{}
	out := map[Str][]Tally{}
	for i := range d.Rows() {
		r := &d.Rows()[i]
		if r.Model == NoStr || idx[i] < 0 || !all && r.Grade == GradeNull || !keep(i) {
			continue
		}
		k := mq{r.Model, idx[i]}
		j, ok := at[k]
		if !ok {
			j = len(out[r.Model])
			at[k] = j
			out[r.Model] = append(out[r.Model], Tally{Q: idx[i]})
		}
		a := &out[r.Model][j]
		switch r.Grade {
		case GradeTrue:
			a.N++
			a.C++
		case GradeFalse:
			a.N++
		default:
			a.U++
		}
		if r.Errored {
			a.E++
		}
	}
	for _, as := range out {
		sort.Slice(as, func(i, j int) bool { return as[i].Q < as[j].Q })
	}
	return out
}
