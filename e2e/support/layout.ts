import type { Page } from 'playwright-core';

/**
 * What sticks out sideways: the document's overflow, and every visible button, link, input, select and
 * textarea inside `main` whose box leaves 0..viewport width (described by its text or label).
 */
const LAYOUT_PROBE = `(() => {
  const doc = document.scrollingElement;
  const width = window.innerWidth;
  const describe = (element) => {
    const text = (element.getAttribute('aria-label') || element.textContent || element.value || '').trim().replace(/\\s+/g, ' ');
    const id = element.id ? '#' + element.id : '';
    return element.tagName.toLowerCase() + id + ' "' + text.slice(0, 60) + '"';
  };
  const offenders = [...document.querySelectorAll('main button, main a[href], main input, main select, main textarea')]
    .filter((element) => {
      const style = getComputedStyle(element);
      if (style.visibility === 'hidden' || style.display === 'none') return false;
      const box = element.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) return false;
      return box.left < -0.5 || box.right > width + 0.5;
    })
    .map((element) => {
      const box = element.getBoundingClientRect();
      return describe(element) + ' at ' + Math.round(box.left) + '..' + Math.round(box.right);
    });
  // Touch targets under 40 px high: buttons, selects, text fields, and labels that wrap a radio or checkbox.
  const small = [...document.querySelectorAll('main button, main a.button, main select, main input:not([type=checkbox]):not([type=radio]):not([type=file]), main label:has(> input[type=radio]), main label:has(> input[type=checkbox])')]
    .filter((element) => {
      const box = element.getBoundingClientRect();
      return box.width > 2 && box.height > 2 && box.height < 39.5 && getComputedStyle(element).visibility !== 'hidden';
    })
    .map((element) => describe(element) + ' is ' + Math.round(element.getBoundingClientRect().height) + ' px high');
  // When the document is too wide: the innermost elements reaching past the edge, or whose content
  // spills past it, leaving out what a scrolling or clipping box around it keeps in.
  const clipped = (element) => {
    for (let parent = element.parentElement; parent && parent !== document.body; parent = parent.parentElement)
      if (getComputedStyle(parent).overflowX !== 'visible') return true;
    return false;
  };
  const tooWide = doc.scrollWidth > doc.clientWidth;
  const past = [...(tooWide ? document.body.querySelectorAll('*') : [])].filter((element) => {
    const spills = getComputedStyle(element).overflowX === 'visible';
    const spill = spills ? Math.max(0, element.scrollWidth - element.clientWidth) : 0;
    const right = element.getBoundingClientRect().right + spill;
    return right > width + 0.5 && !clipped(element);
  });
  const causes = past
    .filter((element) => !past.some((other) => other !== element && element.contains(other)))
    .slice(0, 5)
    .map((element) => element.tagName.toLowerCase() + (element.className && typeof element.className === 'string' ? '.' + element.className.trim().split(/\\s+/).join('.') : '') + ' "' + (element.textContent || '').trim().slice(0, 40) + '"');
  return { scrollWidth: doc.scrollWidth, clientWidth: doc.clientWidth, offenders, small, causes };
})()`;

interface Layout {
  scrollWidth: number;
  clientWidth: number;
  offenders: string[];
  small: string[];
  causes: string[];
}

/**
 * For the first row of a table: its cells' labels (the `::before` content, `"label"` or, with an
 * empty alternative text for screen readers, `"label" / ""`) and whether each cell starts below the
 * previous one (stacked) or beside it.
 */
const rowShape = (testId: string) => `(() => {
  const table = document.querySelector('[data-testid="${testId}"]');
  const headers = [...table.querySelectorAll('thead th')].map((th) => th.textContent.trim());
  const row = table.querySelector('tbody tr');
  const cells = [...row.children];
  const boxes = cells.map((cell) => cell.getBoundingClientRect());
  return {
    headers,
    labels: cells.map((cell) => {
      const content = getComputedStyle(cell, '::before').content;
      return content === 'none' || content === 'normal' ? null : content.replace(/^"(.*?)"(\\s*\\/.*)?$/, '$1');
    }),
    stacked: boxes.slice(1).every((box, index) => box.top >= boxes[index].bottom - 1),
    sideBySide: boxes.slice(1).every((box, index) => Math.abs(box.top - boxes[index].top) < 1 && box.left >= boxes[index].right - 1),
    widest: Math.max(...boxes.map((box) => box.right)),
  };
})()`;

export interface RowShape {
  headers: string[];
  labels: (string | null)[];
  stacked: boolean;
  sideBySide: boolean;
  widest: number;
}

/**
 * What does not fit on the page: the document wider than the viewport (with the elements that make
 * it so) and every visible control in `main` outside 0..viewport width, each named; with `touch`,
 * controls under 40 px high too. Empty when everything fits. `label` prefixes each finding.
 */
export async function layoutMisfits(page: Page, label: string, touch = true): Promise<string[]> {
  const layout = await page.evaluate<Layout>(LAYOUT_PROBE);
  const found = [...layout.offenders, ...(touch ? layout.small : [])].map((what) => `${label}: ${what}`);
  if (layout.scrollWidth > layout.clientWidth)
    found.unshift(
      `${label}: the document is ${layout.scrollWidth} px wide in ${layout.clientWidth} px (${layout.causes.join(', ')})`,
    );
  return found;
}

export function firstRowShape(page: Page, testId: string): Promise<RowShape> {
  return page.evaluate<RowShape>(rowShape(testId));
}

export interface AccessibleTable {
  role: string;
  /** Names of the column headers. */
  headers: string[];
  rows: number;
  /** Cells and row headers. */
  cells: number;
  /** Accessible names of the cells (not row headers), in document order. */
  names: string[];
  /** Text of the same cells (`td` of the body), in document order. */
  texts: string[];
}

/**
 * What Chromium's accessibility tree (what a screen reader gets) says about the table with
 * `data-testid` `testId`.
 */
export async function accessibleTable(page: Page, testId: string): Promise<AccessibleTable> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { root } = await cdp.send('DOM.getDocument', { depth: 0 });
    const { nodeId } = await cdp.send('DOM.querySelector', {
      nodeId: root.nodeId,
      selector: `[data-testid="${testId}"]`,
    });
    const { nodes } = await cdp.send('Accessibility.getPartialAXTree', { nodeId, fetchRelatives: false });
    const query = async (role: string) =>
      (await cdp.send('Accessibility.queryAXTree', { nodeId, role })).nodes;
    const cells = await query('cell');
    return {
      role: String(nodes[0]?.role?.value),
      headers: (await query('columnheader')).map((node) => String(node.name?.value ?? '').trim()),
      rows: (await query('row')).length,
      cells: cells.length + (await query('rowheader')).length,
      names: cells.map((node) => String(node.name?.value ?? '').trim()),
      texts: await page.evaluate<string[]>(
        `[...document.querySelectorAll('[data-testid="${testId}"] tbody td')].map((cell) => cell.textContent.trim())`,
      ),
    };
  } finally {
    await cdp.detach();
  }
}

/**
 * Cells whose accessible name starts with the column label shown before the value though their own
 * text does not: a screen reader would read the label again after the column header. `headers` are
 * the columns of the `td` cells (without a row-header column).
 */
export function labelledTwice(table: { headers: string[]; names: string[]; texts: string[] }): string[] {
  return table.names.filter((name, index) => {
    const header = table.headers[index % table.headers.length];
    return header !== '' && name.startsWith(`${header} `) && !table.texts[index]?.startsWith(header);
  });
}
