import { ChangeDetectionStrategy, Component } from '@angular/core';
import { RouterLink } from '@angular/router';

/** Any URL no feature claims. */
@Component({
  selector: 'app-not-found-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [RouterLink],
  template: `
    <div class="page-heading">
      <h1>Page not found</h1>
    </div>
    <section class="panel">
      <p class="message">There is no page at this address. It may have moved, or the link may be mistyped.</p>
      <a routerLink="/" class="button">Go to the status page</a>
    </section>
  `,
  styles: `
    .message {
      margin: 0 0 1rem;
    }
  `,
})
export class NotFoundPageComponent {}
