package simserver

import (
	"encoding/json"
	"strings"

	"github.com/spotbot/spotbot/exchange"
)

// routeMarket installs the handlers of the market-data endpoints (ping and
// time are part of the protocol layer).
func (s *Server) routeMarket() {
	h := s.handlers
	h[exchange.EpDefaultSymbols] = s.defaultSymbols
	h[exchange.EpOfflineSymbols] = s.offlineSymbols
	h[exchange.EpExchangeInfo] = s.exchangeInfo
	h[exchange.EpDepth] = s.depth
	h[exchange.EpTrades] = s.trades
	h[exchange.EpAggTrades] = s.aggTrades
	h[exchange.EpKlines] = s.klines
	h[exchange.EpAvgPrice] = s.avgPrice
	h[exchange.EpTicker24h] = s.ticker24h
	h[exchange.EpTickerPrice] = s.tickerPrice
	h[exchange.EpBookTicker] = s.bookTicker
}

func (s *Server) defaultSymbols(r *request) (any, *apiError) {
	return struct {
		Code int      `json:"code"`
		Data []string `json:"data"`
		Msg  *string  `json:"msg"`
	}{0, s.x.DefaultSymbols(), nil}, nil
}

type offlineWire struct {
	Symbol      string `json:"symbol"`
	State       int    `json:"state"`
	OfflineTime int64  `json:"offlineTime,omitempty"`
}

func (s *Server) offlineSymbols(r *request) (any, *apiError) {
	out := []offlineWire{}
	for _, o := range s.x.OfflineSymbols() {
		out = append(out, offlineWire{Symbol: o.Symbol, State: o.State, OfflineTime: ms(o.OfflineTime)})
	}
	return struct {
		Data []offlineWire `json:"data"`
	}{out}, nil
}

func (s *Server) exchangeInfo(r *request) (any, *apiError) {
	var names []string
	one, many := r.p.str("symbol"), r.p.str("symbols")
	switch {
	case one != "" && many != "":
		return nil, badParam(exchange.CodeParameterError, "send symbol or symbols, not both")
	case one != "":
		names = []string{one}
	case many != "":
		for _, n := range strings.Split(many, ",") {
			if n = strings.TrimSpace(n); n == "" {
				return nil, badParam(exchange.CodeParameterError, "parameter symbols: empty entry in %q", many)
			}
			names = append(names, n)
		}
	}
	info, err := s.x.ExchangeInfo(names...)
	if err != nil {
		return nil, simErr(err)
	}
	info.ServerTime = exchange.MillisOf(r.now)
	info.RateLimits, info.ExchangeFilters = []json.RawMessage{}, []json.RawMessage{}
	if info.Symbols == nil {
		info.Symbols = []exchange.SymbolInfo{}
	}
	return info, nil
}

// levelsWire writes price levels as [price, quantity] string pairs.
func levelsWire(ls []exchange.PriceLevel) [][2]string {
	out := make([][2]string, len(ls))
	for i, l := range ls {
		out[i] = [2]string{l.Price.String(), l.Qty.String()}
	}
	return out
}

func (s *Server) depth(r *request) (any, *apiError) {
	sym, perr := r.p.required("symbol")
	if perr != nil {
		return nil, perr
	}
	limit, perr := r.p.limit("limit", 100, 5000)
	if perr != nil {
		return nil, perr
	}
	b, err := s.x.Depth(sym, limit)
	if err != nil {
		return nil, simErr(err)
	}
	return struct {
		LastUpdateID int64       `json:"lastUpdateId"`
		Bids         [][2]string `json:"bids"`
		Asks         [][2]string `json:"asks"`
	}{b.LastUpdateID, levelsWire(b.Bids), levelsWire(b.Asks)}, nil
}

type publicTradeWire struct {
	ID           string `json:"id"`
	Price        string `json:"price"`
	Qty          string `json:"qty"`
	QuoteQty     string `json:"quoteQty"`
	Time         int64  `json:"time"`
	IsBuyerMaker bool   `json:"isBuyerMaker"`
	IsBestMatch  bool   `json:"isBestMatch"`
}

func (s *Server) trades(r *request) (any, *apiError) {
	sym, perr := r.p.required("symbol")
	if perr != nil {
		return nil, perr
	}
	limit, perr := r.p.limit("limit", 500, 1000)
	if perr != nil {
		return nil, perr
	}
	ts, err := s.x.Trades(sym, limit)
	if err != nil {
		return nil, simErr(err)
	}
	out := make([]publicTradeWire, len(ts))
	for i, t := range ts {
		out[i] = publicTradeWire{ID: t.ID, Price: t.Price.String(), Qty: t.Qty.String(), QuoteQty: t.QuoteQty.String(),
			Time: ms(t.Time), IsBuyerMaker: t.IsBuyerMaker, IsBestMatch: t.IsBestMatch}
	}
	return out, nil
}

type aggTradeWire struct {
	A string `json:"a"`
	F string `json:"f"`
	L string `json:"l"`
	P string `json:"p"`
	Q string `json:"q"`
	T int64  `json:"T"`
	M bool   `json:"m"`
	B bool   `json:"M"`
}

func (s *Server) aggTrades(r *request) (any, *apiError) {
	q, perr := parseListQuery(r.p, 500, 1000)
	if perr != nil {
		return nil, perr
	}
	if q.start.IsZero() != q.end.IsZero() {
		return nil, badParam(exchange.CodeParameterError, "startTime and endTime must be used together")
	}
	as, err := s.x.AggTrades(exchange.AggTradesRequest{Symbol: q.symbol, Start: q.start, End: q.end, Limit: q.limit})
	if err != nil {
		return nil, simErr(err)
	}
	out := make([]aggTradeWire, len(as))
	for i, a := range as {
		out[i] = aggTradeWire{A: a.ID, F: a.FirstTradeID, L: a.LastTradeID, P: a.Price.String(), Q: a.Qty.String(),
			T: ms(a.Time), M: a.IsBuyerMaker, B: a.IsBestMatch}
	}
	return out, nil
}

func (s *Server) klines(r *request) (any, *apiError) {
	sym, perr := r.p.required("symbol")
	if perr != nil {
		return nil, perr
	}
	iv, perr := r.p.required("interval")
	if perr != nil {
		return nil, perr
	}
	if !exchange.Interval(iv).Valid() {
		return nil, badParam(exchange.CodeParameterError, "parameter interval: %q is not one of 1m 5m 15m 30m 60m 4h 1d 1W 1M", iv)
	}
	limit, perr := r.p.limit("limit", 500, 500)
	if perr != nil {
		return nil, perr
	}
	start, end, perr := window(r.p)
	if perr != nil {
		return nil, perr
	}
	ks, err := s.x.Klines(exchange.KlinesRequest{Symbol: sym, Interval: exchange.Interval(iv), Start: start, End: end, Limit: limit})
	if err != nil {
		return nil, simErr(err)
	}
	return ks, nil
}

func (s *Server) avgPrice(r *request) (any, *apiError) {
	sym, perr := r.p.required("symbol")
	if perr != nil {
		return nil, perr
	}
	a, err := s.x.AvgPrice(sym)
	if err != nil {
		return nil, simErr(err)
	}
	return struct {
		Mins  int    `json:"mins"`
		Price string `json:"price"`
	}{a.Mins, a.Price.String()}, nil
}

type ticker24hWire struct {
	Symbol             string              `json:"symbol"`
	PriceChange        exchange.OptDecimal `json:"priceChange"`
	PriceChangePercent exchange.OptDecimal `json:"priceChangePercent"`
	PrevClosePrice     exchange.OptDecimal `json:"prevClosePrice"`
	LastPrice          exchange.OptDecimal `json:"lastPrice"`
	LastQty            exchange.OptDecimal `json:"lastQty"`
	BidPrice           exchange.OptDecimal `json:"bidPrice"`
	BidQty             exchange.OptDecimal `json:"bidQty"`
	AskPrice           exchange.OptDecimal `json:"askPrice"`
	AskQty             exchange.OptDecimal `json:"askQty"`
	OpenPrice          exchange.OptDecimal `json:"openPrice"`
	HighPrice          exchange.OptDecimal `json:"highPrice"`
	LowPrice           exchange.OptDecimal `json:"lowPrice"`
	Volume             exchange.OptDecimal `json:"volume"`
	QuoteVolume        exchange.OptDecimal `json:"quoteVolume"`
	OpenTime           int64               `json:"openTime"`
	CloseTime          int64               `json:"closeTime"`
	Count              int64               `json:"count"`
}

func toTicker24hWire(t exchange.Ticker24h) ticker24hWire {
	return ticker24hWire{Symbol: t.Symbol, PriceChange: t.PriceChange, PriceChangePercent: t.PriceChangePercent,
		PrevClosePrice: t.PrevClosePrice, LastPrice: t.LastPrice, LastQty: t.LastQty, BidPrice: t.BidPrice, BidQty: t.BidQty,
		AskPrice: t.AskPrice, AskQty: t.AskQty, OpenPrice: t.OpenPrice, HighPrice: t.HighPrice, LowPrice: t.LowPrice,
		Volume: t.Volume, QuoteVolume: t.QuoteVolume, OpenTime: ms(t.OpenTime), CloseTime: ms(t.CloseTime), Count: t.Count}
}

// oneOrAll answers a ticker endpoint: one object for a symbol, an array for
// all symbols.
func oneOrAll[T, W any](r *request, one func(string) (T, error), all func() []T, wire func(T) W) (any, *apiError) {
	if sym := r.p.str("symbol"); sym != "" {
		t, err := one(sym)
		if err != nil {
			return nil, simErr(err)
		}
		return wire(t), nil
	}
	ts := all()
	out := make([]W, len(ts))
	for i, t := range ts {
		out[i] = wire(t)
	}
	return out, nil
}

func (s *Server) ticker24h(r *request) (any, *apiError) {
	return oneOrAll(r, s.x.Ticker24h, s.x.Tickers24h, toTicker24hWire)
}

type priceTickerWire struct {
	Symbol string              `json:"symbol"`
	Price  exchange.OptDecimal `json:"price"`
}

func (s *Server) tickerPrice(r *request) (any, *apiError) {
	return oneOrAll(r, s.x.TickerPrice, s.x.TickerPrices, func(t exchange.PriceTicker) priceTickerWire {
		return priceTickerWire{Symbol: t.Symbol, Price: t.Price}
	})
}

type bookTickerWire struct {
	Symbol   string              `json:"symbol"`
	BidPrice exchange.OptDecimal `json:"bidPrice"`
	BidQty   exchange.OptDecimal `json:"bidQty"`
	AskPrice exchange.OptDecimal `json:"askPrice"`
	AskQty   exchange.OptDecimal `json:"askQty"`
}

func (s *Server) bookTicker(r *request) (any, *apiError) {
	return oneOrAll(r, s.x.BookTicker, s.x.BookTickers, func(t exchange.BookTicker) bookTickerWire {
		return bookTickerWire{Symbol: t.Symbol, BidPrice: t.BidPrice, BidQty: t.BidQty, AskPrice: t.AskPrice, AskQty: t.AskQty}
	})
}
