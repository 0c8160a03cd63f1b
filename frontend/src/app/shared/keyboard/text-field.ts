/** Whether a key pressed on `target` is typing (text inputs, text areas, selects, editable content). */
export function isTextField(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  if (!(target instanceof HTMLInputElement)) return false;
  return !['checkbox', 'radio', 'button', 'submit', 'reset', 'range', 'color', 'file', 'image'].includes(
    target.type,
  );
}

/** A plain key press (no Ctrl, Meta or Alt) outside a text field that nobody handled yet. */
export function isShortcut(event: KeyboardEvent, key: string): boolean {
  if (event.key !== key || event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) {
    return false;
  }
  return !isTextField(event.target);
}
