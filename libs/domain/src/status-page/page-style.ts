/**
 * The public page's stylesheet, inline (the CSP allows inline styles, not inline scripts). Light
 * and dark follow prefers-color-scheme; the day bars shrink so 360 px never scrolls sideways.
 */
export const PAGE_STYLE = `
:root{color-scheme:light dark;--bg:#f6f8fa;--card:#fff;--text:#1f2328;--muted:#59636e;--line:#d1d9e0;
--up:#1a7f37;--degraded:#bf8700;--down:#cf222e;--none:#d1d9e0;--maintenance:#0969da;--paused:#818b98}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--card:#151b23;--text:#f0f6fc;--muted:#9198a1;
--line:#3d444d;--up:#3fb950;--degraded:#d29922;--down:#f85149;--none:#3d444d;--maintenance:#4493f8;--paused:#9198a1}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--text);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main,header,footer{max-width:820px;margin:0 auto;padding:0 16px}
header{padding-top:24px}
h1{font-size:1.6rem;margin:0 0 8px;overflow-wrap:anywhere}
h2{font-size:1.2rem;margin:24px 0 8px;overflow-wrap:anywhere}
h3{font-size:1rem;margin:0;overflow-wrap:anywhere}
p{margin:0 0 8px}
.text{white-space:pre-line;overflow-wrap:anywhere}
.muted{color:var(--muted)}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:12px 16px;margin:0 0 12px}
.banner{border-radius:8px;padding:14px 16px;margin:16px 0;font-weight:600;font-size:1.1rem;color:#fff}
.banner.operational{background:#116329}.banner.degraded{background:#7d4e00}
.banner.outage{background:#a40e26}.banner.maintenance{background:#0550ae}
.announcement{border-left:6px solid var(--maintenance)}
.announcement.warning{border-left-color:var(--degraded)}.announcement.critical{border-left-color:var(--down)}
.severity{font-size:.85rem;font-weight:600;text-transform:uppercase;letter-spacing:.04em}
.sensor{padding:10px 0;border-top:1px solid var(--line)}.sensor:first-of-type{border-top:0}
.row{display:flex;flex-wrap:wrap;justify-content:space-between;align-items:baseline;gap:4px 12px}
.state{font-weight:600;white-space:nowrap}
.state::before{content:"";display:inline-block;width:10px;height:10px;border-radius:50%;margin-right:6px;background:var(--none)}
.state.up::before{background:var(--up)}.state.down::before{background:var(--down)}
.state.degraded::before{background:var(--degraded)}.state.maintenance::before{background:var(--maintenance)}
.state.paused::before{background:var(--paused)}
.bars{display:flex;gap:1px;height:28px;margin:8px 0 4px}
.bars>i{flex:1 1 0;min-width:0;border-radius:1px;background:var(--none)}
.bars>.up{background:var(--up)}.bars>.degraded{background:var(--degraded)}.bars>.down{background:var(--down)}
.scale{display:flex;flex-wrap:wrap;justify-content:space-between;gap:0 12px;font-size:.875rem}
.card h2{margin:0 0 8px}
.incidents{list-style:none;padding:0;margin:0}.incidents li{padding:6px 0;border-top:1px solid var(--line)}
.incidents li:first-child{border-top:0}
footer{padding-top:8px;padding-bottom:32px;font-size:.9rem}
.sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}
`
  .replace(/\n/g, '')
  .trim();
