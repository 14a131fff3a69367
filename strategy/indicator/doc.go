// Package indicator holds streaming technical indicators for strategies:
// SMA, EMA, WMA, RSI, MACD, Bollinger Bands, ATR, Stochastic, rolling Max
// and Min, and VWAP.
//
// Every indicator is fed one value (or one bar) at a time and keeps only
// what its window needs, in buffers allocated by its constructor: an update
// costs O(1) time and allocates nothing, so a strategy can update
// indicators on every bar of a long backtest. For Max, Min, Stochastic and
// Bollinger the O(1) is amortised: an occasional update does O(n) work
// (see each type) that the others do not.
//
// They share one shape:
//
//   - a constructor that validates its parameters, such as NewSMA(n) (*SMA, error),
//     with an error naming the parameter at fault;
//   - Update(v float64), or Update(high, low, close) for bar-based ones;
//   - Ready() reports whether enough input has arrived for every output to
//     be defined;
//   - Value() is the main output; it is 0 until defined, which is at Ready
//     except for MACD's line (LineReady) and Stochastic's %K (KReady),
//     defined a few updates before their signal lines;
//   - Reset() forgets all input, keeping the parameters and buffers.
//
// # Inputs that are not finite
//
// An update with a NaN or ±Inf input (any of a bar's fields, or a negative
// volume for VWAP) is ignored: the indicator is left exactly as it was. A
// recursive indicator such as an EMA would otherwise carry one bad tick into
// every later value, and a running sum would never recover from it.
//
// # Conventions
//
// The definitions follow the npm package technicalindicators 3.1.0, against
// which the tests compare every output on real BTCUSDT hourly data (see
// testdata/gen.js). Each type's documentation says when its first value is
// defined and how it treats degenerate windows (zero range, zero volume).
//
// Indicators are not safe for concurrent use; a strategy owns its own.
package indicator
