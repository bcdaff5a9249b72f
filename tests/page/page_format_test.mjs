// tests/page/page_format_test.mjs - the page's size grammar and size
// formatter (realm_shadow/page/template/page/format.js: parseBytes, human)
// against the table the command is checked against
// (tests/common/size_vectors.tsv, also read by text_parse_test.cc).
//
//   node page_format_test.mjs --format PATH/format.js --vectors PATH/size_vectors.tsv
//
// format.js is a part of one page script (it holds no DOM code): it is run
// here in a function scope of its own, as the page runs it in its.
// Exit 0: all passed; 1: a vector failed.
import { readFileSync } from 'node:fs';

const arg = (name) => process.argv[process.argv.indexOf('--' + name) + 1];
const source = readFileSync(arg('format'), 'utf8');
const page = new Function(source + '\nreturn { human, parseBytes, parseBytesExact, offs };')();

let failed = 0, checked = 0;
const lines = readFileSync(arg('vectors'), 'utf8').split('\n');
lines.forEach((line, k) => {
  if (!line || line.startsWith('#')) return;
  const [kind, text, value] = line.split('\t');
  const where = 'size_vectors.tsv line ' + (k + 1) + " '" + text + "'";
  checked++;
  if (kind === 'parse') {
    const got = page.parseBytesExact(text);
    if (value === 'error') {
      if (!got.error) { failed++; console.log('FAIL ' + where + ': read as ' + got.bytes + ', want refused'); }
      return;
    }
    if (got.error || got.bytes !== BigInt(value)) {
      failed++;
      console.log('FAIL ' + where + ': got ' + (got.error || got.bytes) + ', want ' + value);
      return;
    }
    // parseBytes (a Number for the page's arithmetic) agrees up to 2^53.
    const n = page.parseBytes(text);
    const want = BigInt(value) <= 1n << 53n ? Number(value) : null;
    if (n !== want) { failed++; console.log('FAIL ' + where + ': parseBytes gave ' + n + ', want ' + want); }
  } else if (kind === 'format') {
    // The page holds sizes as Numbers; exact counts past 2^53 come as
    // decimal strings (the JSON writer's rule).
    const bytes = BigInt(text) <= 1n << 53n ? Number(text) : text;
    const got = page.human(bytes);
    if (got !== value) { failed++; console.log('FAIL ' + where + ': got "' + got + '", want "' + value + '"'); }
  } else {
    failed++;
    console.log('FAIL ' + where + ': unknown kind ' + kind);
  }
});
if (page.offs(8257536) !== '8257536' || page.offs('18014398509481985') !== '18014398509481985') {
  failed++;
  console.log('FAIL offsets print as decimal byte counts');
}
console.log(checked + ' vectors, ' + failed + ' failed');
process.exit(failed ? 1 : 0);
