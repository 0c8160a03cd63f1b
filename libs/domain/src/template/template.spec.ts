import { parseTemplate, renderTemplate, TemplateExecError, TemplateParseError } from './index';

const event = {
  Name: 'api',
  Type: 'http',
  Target: 'https://api.example.com/health',
  Group: 'prod',
  Status: 'down',
  Message: 'connection "refused"',
  LatencyMS: 734,
  StatusCode: 503,
  DownSince: '2024-05-01 12:00:00',
  DownFor: '5m',
  Time: new Date(Date.UTC(2024, 4, 1, 12, 5, 0)),
  URL: 'https://status.example.com/s/1',
  Tags: ['edge', 'eu'],
};

const run = (source: string, data: unknown = event): string => parseTemplate(source).execute(data);

describe('Go text/template semantics', () => {
  it.each<[string, unknown, string]>([
    // text, trim markers, comments
    ['plain text', {}, 'plain text'],
    ['{{23 -}} < {{- 45}}', {}, '23<45'],
    ['a  {{- 1}}  b', {}, 'a1  b'],
    ['a {{1 -}}\n\t b', {}, 'a 1b'],
    ['x{{/* a comment */}}y', {}, 'xy'],
    ['x \n{{- /* comment */ -}}\n y', {}, 'xy'],
    ['{{-3}}', {}, '-3'],
    // literals and printing
    [
      '{{"a\\tb"}} {{`raw\\n`}} {{true}} {{0x1F}} {{1_000}} {{017}} {{1.5}} {{-2.25}} {{1e3}}',
      {},
      'a\tb raw\\n true 31 1000 15 1.5 -2.25 1000',
    ],
    ["{{'a'}} {{print 'a'}}", {}, '97 97'],
    ['{{.}}', [1, 'two', [3]], '[1 two [3]]'],
    ['{{.}}', { b: 2, a: [1, null] }, 'map[a:[1 <nil>] b:2]'],
    ['{{.}}', 0.1, '0.1'],
    ['{{.}}', 1234567.5, '1.2345675e+06'],
    ['{{.}}', 0.00001, '1e-05'],
    ['{{.X}}|{{.Y}}', { Y: null }, '<no value>|<no value>'],
    ['{{.A.B.C}}', { A: { B: { C: 'deep' } } }, 'deep'],
    ['{{.A.B}}', {}, '<no value>'],
    // pipelines
    ['{{"x" | printf "%s-%s" "y"}}', {}, 'y-x'],
    ['{{.Message | printf "%q"}}', event, '"connection \\"refused\\""'],
    ['{{.Name | len | printf "%03d"}}', event, '003'],
    ['{{(len .Tags) | print}}', event, '2'],
    ['{{(index .Tags 1).X}}', { Tags: [0, { X: 'y' }] }, 'y'],
    // and / or / not
    [
      '{{and 1 0 "x"}} {{and 1 "x"}} {{or 0 "" "y" "z"}} {{or 0 ""}} {{not 0}} {{not "a"}}',
      {},
      '0 x y  true false',
    ],
    ['{{and false .Missing.Deep}} {{or true (index .Nil 5)}}', { Nil: null }, 'false true'],
    ['{{or .A "default"}}', {}, 'default'],
    // comparisons
    ['{{eq 1 1}} {{eq "a" "b"}} {{eq .Status "up" "down"}} {{eq 2 1 3}}', event, 'true false true false'],
    [
      '{{ne 1 2}} {{lt 1 2}} {{le 2 2}} {{gt "b" "a"}} {{ge 1 2}} {{lt 1.5 2}}',
      {},
      'true true true true false true',
    ],
    ['{{eq .Missing "x"}} {{eq nil nil}}', {}, 'false true'],
    // if / else if / with / range
    ['{{if .A}}a{{else if .B}}b{{else}}c{{end}}', { B: 1 }, 'b'],
    ['{{if .A}}a{{else if .B}}b{{else if .C}}c{{else}}d{{end}}', {}, 'd'],
    [
      '{{if ""}}x{{end}}{{if 0}}x{{end}}{{if .E}}x{{end}}{{if .M}}x{{end}}{{if .O}}y{{end}}',
      { E: [], M: {}, O: { a: 1 } },
      'y',
    ],
    ['{{with .A}}{{.B}}{{else}}none{{end}}', { A: { B: 'b' } }, 'b'],
    ['{{with .A}}{{.B}}{{else}}none{{end}}', { A: {} }, 'none'],
    ['{{with .A}}1{{else with .B}}{{.}}{{end}}', { B: 'two' }, 'two'],
    ['{{range .}}[{{.}}]{{end}}', ['a', 'b'], '[a][b]'],
    ['{{range .}}x{{else}}empty{{end}}', [], 'empty'],
    ['{{range $k, $v := .}}{{$k}}={{$v}};{{end}}', { b: 2, a: 1 }, 'a=1;b=2;'],
    ['{{range $v := .}}{{$v}}{{end}}', ['p', 'q'], 'pq'],
    ['{{range 3}}{{.}}{{end}}', {}, '012'],
    [
      '{{range .}}{{if eq . 3}}{{break}}{{end}}{{if eq . 1}}{{continue}}{{end}}{{.}}{{end}}',
      [0, 1, 2, 3, 4],
      '02',
    ],
    // variables
    ['{{$x := 1}}{{$x}}{{$x = 2}}{{$x}}', {}, '12'],
    ['{{$x := "outer"}}{{with .A}}{{$x := "inner"}}{{$x}}{{end}} {{$x}}', { A: 1 }, 'inner outer'],
    ['{{$x := 0}}{{range .}}{{$x = .}}{{end}}{{$x}}', [1, 2, 3], '3'],
    ['{{range .Tags}}{{.}}@{{$.Name}} {{end}}', event, 'edge@api eu@api '],
    ['{{$e := .}}{{$e.Name}}', event, 'api'],
    // builtins
    ['{{len .}} {{len "héllo"}} {{len .M}}', { M: { a: 1 } }, '1 6 1'],
    ['{{index . 1 0}} {{index .}}', [[1], ['x']], 'x [[1] [x]]'],
    ['{{index .M "a"}} {{index .M "zz"}} {{index "abc" 1}}', { M: { a: 'A' } }, 'A <no value> 98'],
    ['{{slice "hello" 1 3}} {{slice . 1}}', [1, 2, 3], 'el [2 3]'],
    ['{{print "a" "b" 1 2 "c" 3.5 nil}}', {}, 'ab1 2c3.5 <nil>'],
    ['{{println 1 "a"}}', {}, '1 a\n'],
    ['{{html "<a href=\'x\'>&</a>"}}', {}, '&lt;a href=&#39;x&#39;&gt;&amp;&lt;/a&gt;'],
    ['{{js "it\'s <b>\\"q\\"</b>\\n"}}', {}, 'it\\\'s \\u003Cb\\u003E\\"q\\"\\u003C/b\\u003E\\u000A'],
    ['{{urlquery "a b&c=d/é"}}', {}, 'a+b%26c%3Dd%2F%C3%A9'],
  ])('%s', (source, data, expected) => {
    expect(run(source, data)).toBe(expected);
  });
});

describe('printf', () => {
  it.each<[string, unknown[], string]>([
    ['%s|%v|%d', ['a', 1, 2], 'a|1|2'],
    ['%q', ['tab\there'], '"tab\\there"'],
    [
      '%5s|%-5s|%05d|%+d|%x|%X|%o|%b',
      ['ab', 'cd', 42, 3, 255, 255, 8, 5],
      '   ab|cd   |00042|+3|ff|FF|10|101',
    ],
    [
      '%.2f|%6.1f|%f|%e|%g',
      [3.14159, 2.25, 1, 123456.789, 0.0000123],
      '3.14|   2.2|1.000000|1.234568e+05|1.23e-05',
    ],
    ['%t %v', [true, false], 'true false'],
    ['%%|%c|%U', [65, 0x1f600], '%|A|U+1F600'],
    ['%v %s %d %q', [['a', 'b'], ['x'], [1, 2], ['y']], '[a b] [x] [1 2] ["y"]'],
    ['%v', [{ k: 'v', a: 1 }], 'map[a:1 k:v]'],
    ['%.3s|%x', ['abcdef', 'hi'], 'abc|6869'],
    ['%d', ['str'], '%!d(string=str)'],
    ['%s', [5], '%!s(int=5)'],
    ['%d', [1.5], '%!d(float64=1.5)'],
    ['%s %s', ['only'], 'only %!s(MISSING)'],
    ['%s', ['a', 2], 'a%!(EXTRA int=2)'],
    ['%v %s', [null, null], '<nil> %!s(<nil>)'],
    ['%T %T %T', ['a', 1, [1]], 'string int []interface {}'],
  ])('printf %j', (format, args, expected) => {
    const operands = args.map((_, i) => ` .A${i}`).join('');
    const data = { F: format, ...Object.fromEntries(args.map((a, i) => [`A${i}`, a])) };
    expect(run(`{{printf .F${operands}}}`, data)).toBe(expected);
  });
});

describe('printf width and precision', () => {
  // Go's fmt refuses numbers above 1e6: the directive and the rest of the format become %!(NOVERB).
  it.each<[string, string]>([
    ['{{printf "%999999999d" 1}}', '%!(NOVERB)%!(EXTRA int=1)'],
    ['{{printf "a%.999999999d|%s" 1 "x"}}', 'a%!(NOVERB)%!(EXTRA int=1, string=x)'],
    ['{{printf "%9999999.2f" 1.5}}', '%!(NOVERB)%!(EXTRA float64=1.5)'],
    ['{{printf "%1000001s" "x"}}', '%!(NOVERB)%!(EXTRA string=x)'],
    ['{{printf "%.1000001s|" "x"}}', '%!(NOVERB)%!(EXTRA string=x)'],
    ['{{printf "%1000000.1000001f" 2.5}}', '%!(NOVERB)%!(EXTRA float64=2.5)'],
  ])('%s', (source, expected) => {
    expect(run(source, {})).toBe(expected);
  });

  it('pads up to the cap of one million', () => {
    const text = parseTemplate('{{printf "%1000000d" 7}}').execute({}, { maxOutputBytes: 2_000_000 });
    expect(text).toHaveLength(1_000_000);
    expect(text.endsWith(' 7')).toBe(true);
  });
});

describe('alert templates against a sample event', () => {
  it.each<[string, string]>([
    ['{{.Name}} is {{.Status}}', 'api is down'],
    [
      '{{if eq .Status "down"}}DOWN since {{.DownSince}}{{else}}back up after {{.DownFor}}{{end}}',
      'DOWN since 2024-05-01 12:00:00',
    ],
    ['{{with .URL}}Open: {{.}}{{end}}', 'Open: https://status.example.com/s/1'],
    ['{{range .Tags}}#{{.}} {{end}}', '#edge #eu '],
    ['{{printf "%s took %dms" .Name .LatencyMS}}', 'api took 734ms'],
    ['{{.Message | printf "%q"}}', '"connection \\"refused\\""'],
    ['[{{- /* comment */ -}}]', '[]'],
    ['{{if and .URL (gt .LatencyMS 500)}}slow{{end}}', 'slow'],
    ['{{len .Tags}} {{index .Tags 0}}', '2 edge'],
    ['{{$n := .Name}}{{$n}}', 'api'],
    ['{{range $i, $t := .Tags}}{{$i}}={{$t}} {{end}}', '0=edge 1=eu '],
    ['{{range .Nope}}x{{else}}no tags{{end}}', 'no tags'],
    [
      '{{if eq .StatusCode 200}}ok{{else if ge .StatusCode 500}}server error{{else}}other{{end}}',
      'server error',
    ],
    ['{{.Time}}', '2024-05-01 12:05:00 +0000 UTC'],
    ['{{.Group}}/{{.Type}} {{.Target}}', 'prod/http https://api.example.com/health'],
  ])('%s', (source, expected) => {
    expect(run(source)).toBe(expected);
  });

  it('renders "back up" for a recovered event', () => {
    const src = '{{if eq .Status "down"}}DOWN since {{.DownSince}}{{else}}back up after {{.DownFor}}{{end}}';
    expect(run(src, { ...event, Status: 'up' })).toBe('back up after 5m');
  });
});

describe('errors', () => {
  it.each<[string, string]>([
    ['{{.Name', 'template: line 1: unclosed action'],
    ['{{.A }', 'template: line 1: unexpected "}" in operand'],
    ['{{.A}', "template: line 1: bad character U+007D '}'"],
    ['{{nope 1}}', 'template: line 1: function "nope" not defined'],
    ['{{end}}', 'template: line 1: unexpected {{end}}'],
    ['a\n{{else}}', 'template: line 2: unexpected {{else}}'],
    ['{{if .A}}x', 'template: line 1: unexpected EOF'],
    ['{{if}}{{end}}', 'template: line 1: missing value for if'],
    ['{{}}', 'template: line 1: missing value for command'],
    ['{{$x}}', 'template: line 1: undefined variable "$x"'],
    ['{{$x = 1}}', 'template: line 1: undefined variable "$x"'],
    ['{{break}}', 'template: line 1: {{break}} outside {{range}}'],
    ['{{/* open', 'template: line 1: unclosed comment'],
    ['{{/* c */ x}}', 'template: line 1: comment ends before closing delimiter'],
    ['{{"abc}}', 'template: line 1: unterminated quoted string'],
    ['{{(1}}', 'template: line 1: unclosed left paren'],
    ['{{1)}}', 'template: line 1: unexpected right paren'],
    ['{{. | "x"}}', 'template: line 1: non executable command in pipeline stage 2'],
    ['{{1x}}', 'template: line 1: bad number syntax: "1x"'],
    ['{{"a".B}}', 'template: line 1: unexpected . after term "\\"a\\""'],
    ['{{with $a, $b := .}}{{end}}', 'template: line 1: too many declarations in with'],
    ['{{define "x"}}{{end}}', 'template: line 1: {{define}} is not supported'],
    ['{{template "x"}}', 'template: line 1: {{template}} is not supported'],
    ['{{if 1}}{{else}}{{else}}{{end}}', 'template: line 1: expected end; found {{else}}'],
  ])('parse %j', (source, message) => {
    expect(() => parseTemplate(source)).toThrow(TemplateParseError);
    expect(() => parseTemplate(source)).toThrow(message);
  });

  it.each<[string, unknown, string]>([
    ['{{len}}', {}, 'template: line 1: executing at <len>: wrong number of args for len: want 1 got 0'],
    ['{{and}}', {}, 'wrong number of args for and: want at least 1 got 0'],
    ['{{ne 1}}', {}, 'wrong number of args for ne: want 2 got 1'],
    ['{{eq 1}}', {}, 'error calling eq: missing argument for comparison'],
    [
      '\n{{eq .Name 1}}',
      event,
      'template: line 2: executing at <eq .Name 1>: error calling eq: incompatible types for comparison',
    ],
    ['{{lt "a" 1}}', {}, 'error calling lt: incompatible types for comparison'],
    ['{{lt true false}}', {}, 'error calling lt: invalid type for comparison'],
    ['{{eq .Tags .Tags}}', event, 'error calling eq: non-comparable type'],
    ['{{index .Tags 5}}', event, 'error calling index: index out of range: 5'],
    ['{{index .Tags "a"}}', event, 'error calling index: cannot index slice/array with type string'],
    ['{{len 3}}', {}, 'error calling len: len of type int'],
    ['{{.A.B}}', { A: null }, 'nil pointer evaluating interface {}.B'],
    ['{{.Name.X}}', event, "can't evaluate field X in type string"],
    ['{{.Name 1}}', event, 'Name is not a method but has arguments'],
    ['{{1 2}}', {}, "can't give argument to non-function 1"],
    ['{{nil}}', {}, 'nil is not a command'],
    ['{{printf 1}}', {}, 'wrong type for value; expected string; got int'],
    ['{{range .}}{{end}}', 'str', "range can't iterate over str"],
    ['{{range .}}x{{end}}', Array(20_000).fill(0), 'range exceeds 10000 iterations'],
    [
      '{{range .}}{{range .}}{{end}}{{end}}',
      Array(200).fill(Array(200).fill(0)),
      'range exceeds 10000 iterations',
    ],
    ['{{range .}}0123456789{{end}}', Array(9000).fill(0), 'output exceeds 65536 bytes'],
  ])('execute %j', (source, data, message) => {
    const t = parseTemplate(source);
    expect(() => t.execute(data)).toThrow(TemplateExecError);
    expect(() => t.execute(data)).toThrow(message);
  });

  it('renderTemplate reports both kinds of failure as values', () => {
    expect(renderTemplate('{{.Name}}', event)).toEqual({ ok: true, text: 'api' });
    expect(renderTemplate('{{.Name', event)).toEqual({
      ok: false,
      kind: 'parse',
      error: 'template: line 1: unclosed action',
    });
    expect(renderTemplate('{{len 1}}', event)).toMatchObject({ ok: false, kind: 'exec' });
  });

  it('honours custom limits and never throws foreign errors on cyclic data', () => {
    expect(() => parseTemplate('{{range .}}ab{{end}}').execute([1, 2, 3], { maxOutputBytes: 4 })).toThrow(
      'output exceeds 4 bytes',
    );
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => run('{{.}}', cyclic)).toThrow(TemplateExecError);
    expect(() => parseTemplate('{{' + '('.repeat(5000))).toThrow('template nesting too deep');
    expect(() => parseTemplate('{{if 1}}'.repeat(500))).toThrow('template nesting too deep');
    expect(() => parseTemplate('{{' + '('.repeat(500) + '1' + ')'.repeat(500) + '}}')).toThrow(
      TemplateParseError,
    );
  });
});
