package backtest

import (
	"math/rand"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/spotbot/spotbot/exchange"
)

// randomBlocks splits fills into blocks of 1 to 7 fills at random, as the
// journal's blocks would hold them (none empty).
func randomBlocks(r *rand.Rand, fills []Fill) [][]Fill {
	var blocks [][]Fill
	for len(fills) > 0 {
		k := min(len(fills), 1+r.Intn(7))
		blocks = append(blocks, fills[:k:k])
		fills = fills[k:]
	}
	return blocks
}

func TestFillsAcrossBlocks(t *testing.T) {
	fills := make([]Fill, 10)
	for i := range fills {
		fills[i] = Fill{Instance: "x", OwnTrade: exchange.OwnTrade{Symbol: "BTCUSDT", ID: strconv.Itoa(100 + i)}}
	}
	f := fillsOf([][]Fill{fills[:1], fills[1:4], fills[4:8], fills[8:]})
	require.Equal(t, 10, f.Len())
	// The first and last fill of every block.
	for _, i := range []int{0, 1, 3, 4, 7, 8, 9} {
		require.Equal(t, strconv.Itoa(100+i), f.At(i).ID, "At(%d)", i)
		require.Same(t, &fills[i], f.At(i), "At(%d) is the block's own fill", i)
	}
	var ids []string
	for i, x := range f.All() {
		require.Equal(t, len(ids), i)
		ids = append(ids, x.ID)
	}
	require.Equal(t, []string{"100", "101", "102", "103", "104", "105", "106", "107", "108", "109"}, ids)
	// Stopping early stops.
	n := 0
	for i := range f.All() {
		if i == 4 {
			break
		}
		n++
	}
	require.Equal(t, 4, n)
	s := f.Slice()
	require.Equal(t, fills, s)
	s[0].ID = "changed"
	require.Equal(t, "100", fills[0].ID, "Slice copies")
	require.Panics(t, func() { f.At(10) })
	require.Panics(t, func() { f.At(-1) })

	var zero Fills
	require.Equal(t, 0, zero.Len())
	require.Empty(t, zero.Slice())
	for range zero.All() {
		t.Fatal("the zero Fills yielded a fill")
	}
	require.Panics(t, func() { zero.At(0) })
}
