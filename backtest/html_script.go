package backtest

// reportScript draws the charts a report's data describe with the inlined
// lightweight-charts library: every chart's time axis follows the others
// (zoom and pan stay in step), fills show their details on hover, and the
// body's data-rendered attribute counts the charts drawn, for tests.
const reportScript = `(function () {
"use strict";
var D = JSON.parse(document.getElementById("report-data").textContent);
var LC = window.LightweightCharts;
var charts = [], syncing = false, drawn = 0;
function fmt(v, p) { return v.toLocaleString("en-US", {minimumFractionDigits: p, maximumFractionDigits: p}); }
D.charts.forEach(function (spec) {
  var el = document.getElementById(spec.id);
  var chart = LC.createChart(el, {height: spec.height, autoSize: false, width: el.clientWidth || 960,
    layout: {background: {color: "#ffffff"}, textColor: "#1b1f24", attributionLogo: false},
    grid: {vertLines: {color: "#eaeef2"}, horzLines: {color: "#eaeef2"}},
    timeScale: {timeVisible: spec.intraday, secondsVisible: false, borderVisible: false, minBarSpacing: 0.001},
    rightPriceScale: {borderVisible: false}, crosshair: {mode: 0}});
  var main = null, byTime = {};
  spec.series.forEach(function (s) {
    var opt = {priceFormat: {type: "price", precision: s.precision, minMove: Math.pow(10, -s.precision)},
      title: s.title || "", lastValueVisible: false, priceLineVisible: false};
    var series;
    if (s.type === "candles") {
      series = chart.addSeries(LC.CandlestickSeries, Object.assign(opt, {upColor: "#1a7f37", downColor: "#cf222e",
        borderVisible: false, wickUpColor: "#1a7f37", wickDownColor: "#cf222e"}));
      series.setData(s.data.map(function (k) { return {time: k[0], open: k[1], high: k[2], low: k[3], close: k[4]}; }));
      main = series;
    } else if (s.type === "volume") {
      series = chart.addSeries(LC.HistogramSeries, {priceScaleId: "volume", priceFormat: {type: "volume"}, color: "#d0d7de",
        lastValueVisible: false, priceLineVisible: false});
      chart.priceScale("volume").applyOptions({scaleMargins: {top: 0.8, bottom: 0}});
      series.setData(s.data.map(function (p) { return {time: p[0], value: p[1]}; }));
    } else if (s.type === "area") {
      series = chart.addSeries(LC.AreaSeries, Object.assign(opt, {lineColor: s.color, topColor: s.color + "10",
        bottomColor: s.color + "55", lineWidth: 1, invertFilledArea: true}));
      series.setData(s.data.map(function (p) { return {time: p[0], value: p[1]}; }));
    } else {
      series = chart.addSeries(LC.LineSeries, Object.assign(opt, {color: s.color, lineWidth: s.width || 1,
        lineStyle: s.dashed ? 2 : 0, crosshairMarkerVisible: false}));
      series.setData(s.data.map(function (p) { return {time: p[0], value: p[1]}; }));
    }
    if (!main) { main = series; }
  });
  if (spec.fills && spec.fills.length) {
    LC.createSeriesMarkers(main, spec.fills.map(function (f) {
      byTime[f.t] = (byTime[f.t] || []).concat([f]);
      return {time: f.t, position: f.buy ? "belowBar" : "aboveBar", shape: f.buy ? "arrowUp" : "arrowDown",
        color: f.buy ? "#1a7f37" : "#cf222e", size: 1};
    }));
    var tip = document.createElement("div");
    tip.className = "tip";
    el.appendChild(tip);
    chart.subscribeCrosshairMove(function (p) {
      var fs = p.time !== undefined && byTime[p.time];
      if (!fs || !p.point) { tip.style.display = "none"; return; }
      tip.innerHTML = "";
      fs.forEach(function (f) {
        var row = document.createElement("div");
        row.textContent = f.text;
        tip.appendChild(row);
      });
      tip.style.display = "block";
      tip.style.left = Math.min(p.point.x + 12, el.clientWidth - 260) + "px";
      tip.style.top = (p.point.y + 12) + "px";
    });
  }
  chart.timeScale().fitContent();
  charts.push(chart);
  drawn++;
});
charts.forEach(function (c) {
  c.timeScale().subscribeVisibleTimeRangeChange(function (r) {
    if (syncing || !r) { return; }
    syncing = true;
    charts.forEach(function (o) { if (o !== c) { try { o.timeScale().setVisibleRange(r); } catch (e) { /* a chart without data there */ } } });
    syncing = false;
  });
});
window.addEventListener("resize", function () {
  charts.forEach(function (c, i) { var el = document.getElementById(D.charts[i].id); c.resize(el.clientWidth, D.charts[i].height); });
});
document.body.setAttribute("data-rendered", String(drawn));
})();`
