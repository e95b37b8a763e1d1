/**
 * The prompt's markdown: code spans, bold, italics, links and paragraphs become markup; nothing else does, and no
 * prompt can put a tag, an attribute or a script URL on the page.
 */
import { describe, expect, it } from 'vitest';
import { markdown } from '../../../channels/web/pages/markdown.js';

describe('markdown (prompts)', () => {
  it('renders code, bold, italics, links and line breaks', () => {
    expect(markdown('The agent wants to run `Bash`.').value).toBe('<p>The agent wants to run <code>Bash</code>.</p>');
    expect(markdown('**Pay** *now* or _later_\nsee [the invoice](https://example.com/i?a=1&b=2)').value).toBe(
      '<p><strong>Pay</strong> <em>now</em> or <em>later</em><br>see <a href="https://example.com/i?a=1&amp;b=2" rel="noopener noreferrer nofollow">the invoice</a></p>',
    );
    expect(markdown('one\n\ntwo').value).toBe('<p>one</p><p>two</p>');
  });

  it('escapes everything else, inside and outside markup', () => {
    expect(markdown('<img src=x onerror=alert(1)> `<script>`').value).toBe(
      '<p>&lt;img src=x onerror=alert(1)&gt; <code>&lt;script&gt;</code></p>',
    );
    expect(markdown('[click](javascript:alert(1))').value).not.toContain('href');
    expect(markdown('[x](https://a.example/" onmouseover="alert(1))').value).not.toContain('" onmouseover');
    expect(markdown('a*b*c and snake_case_name').value).toBe('<p>a*b*c and snake_case_name</p>');
  });
});
