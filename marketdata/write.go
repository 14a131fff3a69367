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

// WriteSeries writes s in the format ReadCSV reads, header first, each
// value at the series' scale (integers formatted directly, no decimal per
// value).
func WriteSeries(w io.Writer, s *Series) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString(Header)
	bw.WriteByte('\n')
	buf := make([]byte, 0, 160)
	pdec, vdec := int(-s.Exp(Open)), int(-s.Exp(Volume))
	for i := range s.Len() {
		buf = strconv.AppendInt(buf[:0], s.OpenMs(i), 10)
		for f := Open; f <= Volume; f++ {
			dec := pdec
			if f == Volume {
				dec = vdec
			}
			buf = append(buf, ',')
			buf = appendFixed(buf, s.Int(f, i), dec)
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

// appendFixed appends v × 10^-dec as plain text with dec decimals.
func appendFixed(dst []byte, v int64, dec int) []byte {
	if v < 0 {
		dst = append(dst, '-')
		v = -v
	}
	var tmp [24]byte
	digits := strconv.AppendInt(tmp[:0], v, 10)
	if dec <= 0 {
		return append(dst, digits...)
	}
	if len(digits) <= dec {
		dst = append(dst, '0', '.')
		for i := len(digits); i < dec; i++ {
			dst = append(dst, '0')
		}
		return append(dst, digits...)
	}
	dst = append(dst, digits[:len(digits)-dec]...)
	dst = append(dst, '.')
	return append(dst, digits[len(digits)-dec:]...)
}
