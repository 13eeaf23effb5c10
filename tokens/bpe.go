package tokens

import (
	"fmt"
	"math"
	"strings"

	"github.com/tiktoken-go/tokenizer"
)

// bpe is one encoding: its vocabulary (token bytes by id and ids by bytes)
// and its pre-tokenizer. The vocabularies come from
// github.com/tiktoken-go/tokenizer, which compiles in tiktoken's files; the
// splitting and merging are done here (see split.go for why).
type bpe struct {
	name   string
	ranks  map[string]uint32 // token bytes -> id (an id is its merge rank)
	tokens []string          // id -> token bytes
	next   func(s string, i int) int
}

// vocabSizes are the ordinary (non-special) token counts of the encodings;
// ids run from 0 to size-1 without gaps.
var vocabSizes = map[string]int{Cl100kBase: 100256, O200kBase: 199998}

// loadBPE reads the vocabulary of encoding out of the tokenizer package by
// decoding every id, and checks it is what tiktoken's file holds: every id
// present, every byte string distinct.
func loadBPE(encoding string, next func(string, int) int) (*bpe, error) {
	c, err := tokenizer.Get(tokenizer.Encoding(encoding))
	if err != nil {
		return nil, fmt.Errorf("tokens: encoding %s: %w", encoding, err)
	}
	c.SetErrorMode(tokenizer.ErrorModeNone) // raw bytes: tokens may split characters
	n := vocabSizes[encoding]
	b := &bpe{name: encoding, ranks: make(map[string]uint32, n), tokens: make([]string, n), next: next}
	for id := range n {
		tok, err := c.Decode([]uint{uint(id)})
		if err != nil {
			return nil, fmt.Errorf("tokens: %s vocabulary: token %d: %w", encoding, id, err)
		}
		// Decode returns a fresh string per call, so keeping it is safe.
		b.tokens[id] = tok
		if _, dup := b.ranks[tok]; dup {
			return nil, fmt.Errorf("tokens: %s vocabulary: bytes %q appear twice", encoding, tok)
		}
		b.ranks[tok] = uint32(id)
	}
	return b, nil
}

// encode calls emit with the id of every token of text (valid UTF-8).
func (b *bpe) encode(text string, emit func(id uint32)) {
	var m merger
	for i := 0; i < len(text); {
		j := b.next(text, i)
		piece := text[i:j]
		i = j
		if id, ok := b.ranks[piece]; ok {
			emit(id)
			continue
		}
		bounds := m.merge(piece, b.ranks)
		for k := 0; k+1 < len(bounds); k++ {
			emit(b.ranks[piece[bounds[k]:bounds[k+1]]])
		}
	}
}

// decode returns the bytes of ids, concatenated; they need not be valid UTF-8.
func (b *bpe) decode(ids []uint32) (string, error) {
	n := 0
	for _, id := range ids {
		if int(id) >= len(b.tokens) {
			return "", fmt.Errorf("tokens: %s has no token %d", b.name, id)
		}
		n += len(b.tokens[id])
	}
	var sb strings.Builder
	sb.Grow(n)
	for _, id := range ids {
		sb.WriteString(b.tokens[id])
	}
	return sb.String(), nil
}

// merger runs tiktoken's byte-pair merge on one piece, reusing its buffers
// from piece to piece. The rule (tiktoken's _byte_pair_merge): start from
// single bytes; repeatedly merge the adjacent pair whose joined bytes have
// the lowest rank, the leftmost among equal ranks, until no joined pair is in
// the vocabulary.
type merger struct {
	start []int    // part start offsets, plus len(piece) at the end
	rank  []uint32 // rank[k]: rank of parts k and k+1 joined; noRank if none
}

const noRank = math.MaxUint32

// longPiece is the piece length from which merge uses a heap: the plain scan
// costs O(n^2), which matters for long runs of spaces or digits-free words.
const longPiece = 128

// merge returns the part boundaries of piece: offsets from 0 to len(piece).
// The result is valid until the next call.
func (m *merger) merge(piece string, ranks map[string]uint32) []int {
	if len(piece) >= longPiece {
		return mergeHeap(piece, ranks)
	}
	return m.mergeScan(piece, ranks)
}

// mergeScan is merge by a linear scan for the lowest pair at each step.
func (m *merger) mergeScan(piece string, ranks map[string]uint32) []int {
	m.start = m.start[:0]
	for i := 0; i <= len(piece); i++ {
		m.start = append(m.start, i)
	}
	m.rank = m.rank[:0]
	pairRank := func(k int) uint32 {
		// Rank of parts k and k+1 joined, with start holding part starts.
		if k+2 >= len(m.start) {
			return noRank
		}
		if r, ok := ranks[piece[m.start[k]:m.start[k+2]]]; ok {
			return r
		}
		return noRank
	}
	for k := 0; k+1 < len(m.start); k++ {
		m.rank = append(m.rank, pairRank(k))
	}
	for len(m.start) > 2 {
		best, at := uint32(noRank), -1
		for k := 0; k+2 < len(m.start); k++ {
			if m.rank[k] < best {
				best, at = m.rank[k], k
			}
		}
		if at < 0 {
			break
		}
		// Join parts at and at+1: drop the boundary between them.
		m.start = append(m.start[:at+1], m.start[at+2:]...)
		m.rank = append(m.rank[:at+1], m.rank[at+2:]...)
		m.rank[at] = pairRank(at)
		if at > 0 {
			m.rank[at-1] = pairRank(at - 1)
		}
	}
	return m.start
}

// mergeHeap gives the same boundaries as the scan in merge, in O(n log n):
// parts are a linked list of start offsets and candidate pairs sit in a
// min-heap ordered by (rank, offset), which pops the leftmost lowest pair as
// the scan picks it. Entries made stale by an earlier merge are skipped: a
// part's pair rank only ever changes to the rank of a longer byte string,
// and ranks of distinct strings differ, so a stale entry never matches.
func mergeHeap(piece string, ranks map[string]uint32) []int {
	n := len(piece)
	next := make([]int, n+1) // next[i]: start of the part after the one at i; n+1 past the end
	prev := make([]int, n+1)
	cur := make([]uint32, n+1) // cur[i]: rank of the part at i joined with the next; noRank if none
	alive := make([]bool, n+1)
	for i := range next {
		next[i], prev[i], alive[i] = i+1, i-1, true
	}
	pairRank := func(i int) uint32 {
		j := next[i]
		if j >= n {
			return noRank
		}
		if r, ok := ranks[piece[i:next[j]]]; ok {
			return r
		}
		return noRank
	}
	var h pairHeap
	for i := 0; i < n; i++ {
		if cur[i] = pairRank(i); cur[i] != noRank {
			h = append(h, pair{cur[i], i})
		}
	}
	h.init()
	for len(h) > 0 {
		top := h.pop()
		i := top.at
		if !alive[i] || cur[i] != top.rank {
			continue
		}
		j := next[i]
		alive[j] = false
		next[i] = next[j]
		if next[j] <= n {
			prev[next[j]] = i
		}
		for _, k := range [2]int{i, prev[i]} {
			if k < 0 {
				continue
			}
			if cur[k] = pairRank(k); cur[k] != noRank {
				h.push(pair{cur[k], k})
			}
		}
	}
	var bounds []int
	for i := 0; i <= n; i = next[i] {
		bounds = append(bounds, i)
	}
	return bounds
}

// pair is a merge candidate: the part starting at at, joined with the next.
type pair struct {
	rank uint32
	at   int
}

// pairHeap is a binary min-heap of pairs by (rank, at).
type pairHeap []pair

func (h pairHeap) less(a, b int) bool {
	return h[a].rank < h[b].rank || h[a].rank == h[b].rank && h[a].at < h[b].at
}

func (h pairHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *pairHeap) push(p pair) {
	*h = append(*h, p)
	s := *h
	for i := len(s) - 1; i > 0; {
		parent := (i - 1) / 2
		if !s.less(i, parent) {
			break
		}
		s[i], s[parent] = s[parent], s[i]
		i = parent
	}
}

func (h *pairHeap) pop() pair {
	s := *h
	top := s[0]
	s[0] = s[len(s)-1]
	*h = s[:len(s)-1]
	h.down(0)
	return top
}

func (h pairHeap) down(i int) {
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && h.less(c+1, c) {
			c++
		}
		if !h.less(c, i) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}
