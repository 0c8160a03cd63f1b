import { DestroyRef, afterNextRender, inject, signal, type ElementRef } from '@angular/core';

/**
 * Where an element lies relative to the browser window, as signals: the window's top edge measured
 * from the element's top (`offset`, negative while the element starts below it), the window's height
 * and the element's width. Read at most once a frame, on scroll and resize (passive listeners) and
 * when the element or the page changes size. Create it in an injection context.
 */
export class WindowScroll {
  readonly offset = signal(0);
  readonly windowHeight = signal(800);
  readonly width = signal(1000);

  private frame = 0;

  constructor(private readonly element: () => ElementRef<HTMLElement> | undefined) {
    const destroyRef = inject(DestroyRef);
    afterNextRender(() => {
      const schedule = () => {
        if (this.frame) return;
        this.frame = requestAnimationFrame(() => {
          this.frame = 0;
          this.measure();
        });
      };
      const options: AddEventListenerOptions = { passive: true };
      window.addEventListener('scroll', schedule, options);
      window.addEventListener('resize', schedule, options);
      const observer = new ResizeObserver(schedule);
      observer.observe(document.body);
      const element = this.element()?.nativeElement;
      if (element) observer.observe(element);
      this.measure();
      destroyRef.onDestroy(() => {
        cancelAnimationFrame(this.frame);
        window.removeEventListener('scroll', schedule, options);
        window.removeEventListener('resize', schedule, options);
        observer.disconnect();
      });
    });
  }

  /** The element's top in page coordinates (px). */
  top(): number {
    const element = this.element()?.nativeElement;
    return element ? element.getBoundingClientRect().top + window.scrollY : 0;
  }

  /** Scrolls the window so that `y` (px below the element's top) is at the window's top. */
  scrollTo(y: number): void {
    window.scrollTo({ top: Math.max(0, this.top() + y), behavior: 'instant' });
    this.measure();
  }

  measure(): void {
    const element = this.element()?.nativeElement;
    if (!element) return;
    this.offset.set(-element.getBoundingClientRect().top);
    this.windowHeight.set(window.innerHeight);
    this.width.set(element.clientWidth);
  }
}
