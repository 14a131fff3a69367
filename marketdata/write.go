package marketdata

import (
	"bufio"
	"fmt"
	"io"
	"strconv"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// WriteCSV writes klines in the format ReadCSV reads, header first. Decimals
// keep their scale (16713.080000 stays 16713.080000), so a file read and
// written again is unchanged byte for byte.
func WriteCSV(w io.Writer, ks []exchange.Kline) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString(Header)
	bw.WriteByte('\n')
	buf := make([]byte, 0, 128)
	for _, k := range ks {
		buf = buf[:0]
		buf = strconv.AppendInt(buf, k.OpenTime.UnixMilli(), 10)
		for _, d := range [5]decimal.Decimal{k.Open, k.High, k.Low, k.Close, k.Volume} {
			buf = append(buf, ',')
			buf = AppendDecimal(buf, d)
		}
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return fmt.Errorf("marketdata: writing csv: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("marketdata: writing csv: %w", err)
	}
	return nil
}
