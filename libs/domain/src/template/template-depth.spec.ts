import { TemplateParseError } from './errors';
import { parseTemplate, renderTemplate } from './template';

/** Templates come from API callers and the configuration file: no depth may overflow the stack. */
describe('template nesting', () => {
  it.each([
    ['{{if .Name}}', '{{end}}'],
    ['{{with .Name}}', '{{end}}'],
    ['{{range .Tags}}', '{{end}}'],
    ['{{if .Name}}{{else if .Name}}', '{{end}}'],
  ])('%s nested 5,000 deep is a parse error, not a stack overflow', (open, close) => {
    const source = open.repeat(5000) + close.repeat(5000);
    expect(() => parseTemplate(source)).toThrow(TemplateParseError);
    expect(() => parseTemplate(source)).toThrow(/nesting too deep/);
  });

  it('5,000 nested parentheses are a parse error too', () => {
    const source = `{{${'('.repeat(5000)}.Name${')'.repeat(5000)}}}`;
    expect(() => parseTemplate(source)).toThrow(/nesting too deep/);
  });

  it('nesting up to the limit parses and renders', () => {
    const result = renderTemplate('{{if .Name}}'.repeat(100) + '{{.Name}}' + '{{end}}'.repeat(100), {
      Name: 'web',
    });
    expect(result).toEqual({ ok: true, text: 'web' });
  });
});
