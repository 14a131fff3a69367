// gen.js writes the golden files the indicator tests compare against. The
// values come from an independent implementation: the npm package
// technicalindicators, version 3.1.0.
//
// The goldens in this directory were produced with:
//
//	mkdir -p /tmp/ti && cd /tmp/ti && npm init -y && npm install technicalindicators@3.1.0
//	cd <repo>/strategy/indicator/testdata && NODE_PATH=/tmp/ti/node_modules node gen.js
//
// Input: BTCUSDT-1h.csv in this directory (see NOTICE). Each golden is a CSV
// with a header; column "i" is the 0-based row of the bar in the input whose
// update produced the value, and the other columns are the indicator's
// outputs after that bar. A value the library does not define yet is an
// empty field. Numbers are JavaScript's shortest round-trip text, so Go's
// strconv.ParseFloat reads back the exact float64 the library computed.
//
// technicalindicators rounds only when setConfig('precision', ...) is set;
// it is not, so outputs are unrounded, except RSI, which the library always
// rounds to 2 decimals (toFixed(2)). rsi_14.csv therefore also carries the
// library's unrounded AverageGain and AverageLoss, from which the tests
// derive the exact RSI.
'use strict';
const fs = require('fs');
const path = require('path');
const ti = require('technicalindicators');

const version = require('technicalindicators/package.json').version;
if (version !== '3.1.0') {
  throw new Error(`technicalindicators ${version}: the goldens were made with 3.1.0`);
}

const dir = __dirname;
const rows = fs.readFileSync(path.join(dir, 'BTCUSDT-1h.csv'), 'utf8').trim().split('\n').slice(1);
const high = [], low = [], close = [], volume = [];
for (const r of rows) {
  const f = r.split(',');
  high.push(parseFloat(f[2]));
  low.push(parseFloat(f[3]));
  close.push(parseFloat(f[4]));
  volume.push(parseFloat(f[5]));
}
const n = close.length;

// write aligns a library result (which starts at the first defined output)
// with the input rows: its last element belongs to the last bar.
function write(name, header, result, cells) {
  const offset = n - result.length;
  const lines = ['i,' + header.join(',')];
  result.forEach((r, j) => {
    lines.push([offset + j, ...cells(r).map((v) => (v === undefined ? '' : String(v)))].join(','));
  });
  fs.writeFileSync(path.join(dir, name), lines.join('\n') + '\n');
}

const one = (v) => [v];

for (const p of [1, 2, 20]) {
  write(`sma_${p}.csv`, ['sma'], ti.SMA.calculate({ period: p, values: close }), one);
  write(`ema_${p}.csv`, ['ema'], ti.EMA.calculate({ period: p, values: close }), one);
  write(`wma_${p}.csv`, ['wma'], ti.WMA.calculate({ period: p, values: close }), one);
}

{
  const rsi = ti.RSI.calculate({ period: 14, values: close });
  const gain = ti.AverageGain.calculate({ period: 14, values: close });
  const loss = ti.AverageLoss.calculate({ period: 14, values: close });
  if (rsi.length !== gain.length || gain.length !== loss.length) {
    throw new Error('RSI, AverageGain and AverageLoss disagree on length');
  }
  write('rsi_14.csv', ['rsi2dp', 'avggain', 'avgloss'], rsi.map((v, j) => [v, gain[j], loss[j]]), (r) => r);
}

write('macd_12_26_9.csv', ['macd', 'signal', 'histogram'],
  ti.MACD.calculate({ values: close, fastPeriod: 12, slowPeriod: 26, signalPeriod: 9,
    SimpleMAOscillator: false, SimpleMASignal: false }),
  (r) => [r.MACD, r.signal, r.histogram]);

write('bb_20_2.csv', ['middle', 'upper', 'lower', 'pb'],
  ti.BollingerBands.calculate({ period: 20, values: close, stdDev: 2 }),
  (r) => [r.middle, r.upper, r.lower, r.pb]);

write('atr_14.csv', ['atr'], ti.ATR.calculate({ period: 14, high, low, close }), one);

write('stoch_14_3.csv', ['k', 'd'],
  ti.Stochastic.calculate({ period: 14, signalPeriod: 3, high, low, close }),
  (r) => [r.k, r.d]);

write('max_20.csv', ['max'], ti.Highest.calculate({ period: 20, values: high }), one);
write('min_20.csv', ['min'], ti.Lowest.calculate({ period: 20, values: low }), one);

write('vwap.csv', ['vwap'], ti.VWAP.calculate({ high, low, close, volume }), one);

// The library has no rolling VWAP; it is the ratio of the library's SMAs
// of typical price × volume and of volume over the same window.
{
  const p = 24;
  const tp = close.map((c, i) => (high[i] + low[i] + c) / 3);
  const pv = ti.SMA.calculate({ period: p, values: tp.map((t, i) => volume[i] * t) });
  const v = ti.SMA.calculate({ period: p, values: volume });
  write(`vwap_${p}.csv`, ['vwap'], pv.map((x, j) => x / v[j]), one);
}
