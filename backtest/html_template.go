package backtest

import (
	"html/template"
	"sync"
)

// The templates are parsed when a report is first written rather than
// when the program starts: every command of the binary would otherwise
// pay for them (0.3 ms) before its first line.

// pageTemplate is every report's page: the note, the charts (interactive
// or static), then the sections.
var pageTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Parse(pageText))
})

// sectionTemplates are the blocks of the reports below the charts.
var sectionTemplates = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("sections").Parse(sectionsText))
})

// pageText is pageTemplate's text.
const pageText = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#1b1f24;background:#fff;max-width:1200px}
h1{font-size:20px}h2{font-size:16px;margin-top:28px}
.note{background:#fff8c5;border:1px solid #d4a72c;padding:8px 12px}
.chart{position:relative;width:100%;border:1px solid #d0d7de;margin-top:4px}
.legend{font-size:12px;color:#57606a}.legend span{display:inline-block;margin-right:14px}
.legend i{display:inline-block;width:18px;height:3px;vertical-align:middle;margin-right:4px}
.tip{position:absolute;display:none;z-index:10;background:#fff;border:1px solid #8c959f;padding:4px 8px;font-size:12px;max-width:250px;pointer-events:none}
svg{display:block;max-width:100%;height:auto;border:1px solid #d0d7de;background:#fcfcfd}
.price{fill:none;stroke:#57606a;stroke-width:1}
.equity{fill:none;stroke:#0969da;stroke-width:1.5}
.hold{fill:none;stroke:#8c959f;stroke-width:1;stroke-dasharray:4 3}
.drawdown{fill:none;stroke:#cf222e;stroke-width:1}
.grid{stroke:#eaeef2}.label{font-size:11px;fill:#57606a}
.buy{fill:#1a7f37}.sell{fill:#cf222e}
table{border-collapse:collapse;margin-top:8px}td,th{border:1px solid #d0d7de;padding:3px 8px;text-align:right}
th{background:#f6f8fa}td:first-child,th:first-child{text-align:left}
td.win{color:#1a7f37}td.loss{color:#cf222e}
.heat td{min-width:44px}.best{outline:2px solid #0969da}
.grid2{display:flex;flex-wrap:wrap;gap:12px}
</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{if .Note}}<p class="note" id="note">{{.Note}}</p>
{{end}}{{if .Interactive}}{{range .Charts}}<h2>{{.Title}}</h2>
{{if .Legend}}<div class="legend">{{range .Legend}}<span><i style="background:{{.Color}}"></i>{{.Name}}</span>{{end}}</div>
{{end}}<div class="chart" id="{{.ID}}"></div>
{{end}}{{else}}{{range .Static}}<h2>{{.Title}}</h2>
<svg id="{{.ID}}" class="chart" viewBox="0 0 960 260" role="img" aria-label="{{.Title}}">
{{range .Grid}}<line class="grid" x1="70" x2="950" y1="{{printf "%.1f" .Y}}" y2="{{printf "%.1f" .Y}}"/><text class="label" x="4" y="{{printf "%.1f" .Y}}">{{.Label}}</text>
{{end}}{{range .Times}}<line class="grid" x1="{{printf "%.1f" .X}}" x2="{{printf "%.1f" .X}}" y1="10" y2="236"/><text class="label" x="{{printf "%.1f" .X}}" y="252" text-anchor="middle">{{.Label}}</text>
{{end}}{{range .Lines}}<polyline class="{{.Class}}" points="{{.Points}}"/>
{{end}}{{range .Markers}}<circle class="{{.Class}}" cx="{{printf "%.1f" .X}}" cy="{{printf "%.1f" .Y}}" r="3"><title>{{.Title}}</title></circle>
{{end}}</svg>
{{end}}{{end}}{{range .Sections}}{{.}}
{{end}}{{if .Interactive}}<script type="application/json" id="report-data">{{.Data}}</script>
<script>{{.Lib}}</script>
<script>{{.App}}</script>
{{end}}</body>
</html>
`

// sectionsText is sectionTemplates' text.
const sectionsText = `
{{define "config"}}<h2>Parameters and configuration</h2>
<table id="config">{{range .Info}}<tr><td>{{.Name}}</td><td>{{.Value}}</td></tr>{{end}}</table>
<table id="instances-config"><tr><th>instance</th><th>strategy</th><th>symbols</th><th>interval</th><th>params</th></tr>
{{range .Instances}}<tr><td>{{.ID}}</td><td>{{.Name}}</td><td>{{.Symbols}}</td><td>{{.Interval}}</td><td>{{.Params}}</td></tr>
{{end}}</table>{{end}}

{{define "metrics"}}<h2>Metrics</h2>
<table id="metrics">
{{range .}}<tr><td>{{.Name}}</td><td>{{.Value}}</td></tr>
{{end}}</table>{{end}}

{{define "instances"}}<h2>Per instance</h2>
<table id="per-instance"><tr><th>instance</th><th>strategy</th><th>fills</th><th>volume</th><th>trades</th><th>win rate %</th><th>avg trade %</th><th>PnL</th><th>fees</th></tr>
{{range .}}<tr><td>{{.Name}}</td><td>{{.Detail}}</td><td>{{.Fills}}</td><td>{{.Volume}}</td><td>{{.Trades}}</td><td>{{.WinRate}}</td><td>{{.AvgRet}}</td><td>{{.PnL}}</td><td>{{.Fees}}</td></tr>
{{end}}</table>{{end}}

{{define "symbols"}}<h2>Per symbol</h2>
<table id="per-symbol"><tr><th>symbol</th><th>fills</th><th>volume</th><th>trades</th><th>win rate %</th><th>avg trade %</th><th>PnL</th><th>fees</th><th>buy &amp; hold %</th></tr>
{{range .}}<tr><td>{{.Name}}</td><td>{{.Fills}}</td><td>{{.Volume}}</td><td>{{.Trades}}</td><td>{{.WinRate}}</td><td>{{.AvgRet}}</td><td>{{.PnL}}</td><td>{{.Fees}}</td><td>{{.Extra}}</td></tr>
{{end}}</table>{{end}}

{{define "monthly"}}<h2>Monthly and yearly returns %</h2>
<table id="monthly" class="heat"><tr><th>year</th><th>Jan</th><th>Feb</th><th>Mar</th><th>Apr</th><th>May</th><th>Jun</th><th>Jul</th><th>Aug</th><th>Sep</th><th>Oct</th><th>Nov</th><th>Dec</th><th>year</th></tr>
{{range .}}<tr><td>{{.Year}}</td>{{range .Months}}<td{{if .Style}} style="{{.Style}}"{{end}}>{{.Text}}</td>{{end}}<td style="{{.Total.Style}}"><b>{{.Total.Text}}</b></td></tr>
{{end}}</table>{{end}}

{{define "histogram"}}<h2>Trade returns %</h2>
{{if .Empty}}<p>No trades.</p>{{else}}<svg id="histogram" viewBox="0 0 960 200" role="img" aria-label="trade return histogram">
{{range .Bars}}<rect class="{{.Class}}" x="{{printf "%.1f" .X}}" y="{{printf "%.1f" .Y}}" width="{{printf "%.1f" .W}}" height="{{printf "%.1f" .H}}"><title>{{.Title}}</title></rect>
{{end}}{{range .Ticks}}<text class="label" x="{{printf "%.1f" .X}}" y="192" text-anchor="middle">{{.Label}}</text>
{{end}}</svg>{{end}}{{end}}

{{define "trades"}}<h2>Trades</h2>
<table id="trades">
<tr>{{if .Several}}<th>instance</th>{{end}}<th>symbol</th><th>entry</th><th>exit</th><th>held</th><th>qty</th><th>entry price</th><th>exit price</th><th>fees</th><th>PnL</th><th>return %</th><th>exit reason</th></tr>
{{range .Rows}}<tr>{{if $.Several}}<td>{{.Instance}}</td>{{end}}<td>{{.Symbol}}</td><td>{{.Entry}}</td><td>{{.Exit}}</td><td>{{.Duration}}</td><td>{{.Qty}}</td><td>{{.EntryPrice}}</td><td>{{.ExitPrice}}</td><td>{{.Fees}}</td><td class="{{if .Win}}win{{else}}loss{{end}}">{{.PnL}}</td><td>{{.Return}}</td><td>{{.Reason}}</td></tr>
{{end}}</table>{{end}}

{{define "sweep-grid"}}<h2>Objective ({{.Objective}}) over the grid</h2>
{{if .Edge}}<p class="note" id="edge">{{.Edge}}</p>{{end}}
<div class="grid2">{{range .Maps}}<div><p>{{if .Title}}{{.Title}}{{end}}</p>
<table class="heat sweep-heatmap"><tr><th>{{.YName}} \ {{.XName}}</th>{{range .XVals}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr><td>{{.Y}}</td>{{range .Cells}}<td title="{{.Title}}"{{if .Style}} style="{{.Style}}"{{end}}{{if .Best}} class="best"{{end}}>{{.Text}}</td>{{end}}</tr>
{{end}}</table></div>{{end}}</div>{{end}}

{{define "overfitting"}}<h2>Overfitting</h2>
<table id="overfitting">{{range .Rows}}<tr><td>{{.Name}}</td><td>{{.Value}}</td></tr>{{end}}</table>
{{range .Notes}}<p>{{.}}</p>{{end}}{{end}}

{{define "sweep-runs"}}<h2>Runs, best first</h2>
<table id="runs"><tr><th>rank</th><th>score</th><th>return %</th><th>sharpe</th><th>max dd %</th><th>trades</th><th>params</th></tr>
{{range .}}<tr><td>{{.Rank}}</td><td>{{.Score}}</td><td>{{.Return}}</td><td>{{.Sharpe}}</td><td>{{.MaxDD}}</td><td>{{.Trades}}</td><td>{{.Params}}</td></tr>
{{end}}</table>{{end}}

{{define "windows"}}<h2>Windows</h2>
<table id="windows"><tr><th>train from</th><th>test from</th><th>test to</th><th>best params</th><th>in-sample score</th><th>out-of-sample return %</th><th>trades</th></tr>
{{range .}}<tr><td>{{.TrainFrom}}</td><td>{{.TestFrom}}</td><td>{{.TestTo}}</td><td>{{.Best}}</td><td>{{.Score}}</td><td>{{.Return}}</td><td>{{.Trades}}</td></tr>
{{end}}</table>{{end}}
`
