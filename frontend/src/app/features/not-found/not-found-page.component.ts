import { ChangeDetectionStrategy, Component } from '@angular/core';
import { RouterLink } from '@angular/router';
import { TranslocoPipe } from '@jsverse/transloco';

/** Any URL no feature claims. */
@Component({
  selector: 'app-not-found-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [RouterLink, TranslocoPipe],
  template: `
    <div class="page-heading">
      <h1>{{ 'app.title.notFound' | transloco }}</h1>
    </div>
    <section class="panel">
      <p class="message">{{ 'app.notFound.message' | transloco }}</p>
      <a routerLink="/" class="button">{{ 'app.notFound.home' | transloco }}</a>
    </section>
  `,
  styles: `
    .message {
      margin: 0 0 1rem;
    }
  `,
})
export class NotFoundPageComponent {}
