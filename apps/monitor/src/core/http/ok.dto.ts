/** The answer of a route that has nothing to say but that it worked. */
export class OkDto {
  ok!: true;
}
