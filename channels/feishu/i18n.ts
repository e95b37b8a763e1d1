/**
 * @module channels/feishu/i18n
 * Card and toast wording in English and Chinese. English comes from `src/channel/card.ts` unchanged (the one place that
 * words a card); Chinese is a translation layer over the same request fields, chosen by `FEISHU_LANGUAGE`. The call
 * summary's Chinese words (`i18n-summary.ts`) are handed to the card model, which lays the summary out as for English.
 */
import { cardText, type CardText, type CardTextOptions } from '../../src/channel/card.js';
import type { DecisionRejection } from '../../src/channel/channel.js';
import type { ConfirmationRequest, RequestStatus } from '../../src/requests/types.js';
import type { FeishuLanguage } from './options.js';
import { CHINESE_SUMMARY_WORDS } from './i18n-summary.js';

/** Fixed words around the card's values. */
export interface CardLabels {
  tool: string;
  arguments: string;
  requester: string;
  expires: string;
  approvers: string;
  status: string;
  reasonPlaceholder: string;
  notFoundTitle: string;
  notFoundBody: string;
}

/** A card's text in one language, plus its labels and button captions. */
export interface LocalizedCard extends CardText {
  labels: CardLabels;
  buttons: { approve: string; deny: string };
}

const LABELS: Record<FeishuLanguage, CardLabels> = {
  en: {
    tool: 'Tool',
    arguments: 'Arguments',
    requester: 'Requested by',
    expires: 'Expires',
    approvers: 'Approvers',
    status: 'Status',
    reasonPlaceholder: 'Reason (optional, the agent sees it)',
    notFoundTitle: 'Request not found',
    notFoundBody: 'This approval request no longer exists.',
  },
  zh: {
    tool: '工具',
    arguments: '参数',
    requester: '请求方',
    expires: '过期时间',
    approvers: '审批人',
    status: '状态',
    reasonPlaceholder: '理由（可选，会告知智能体）',
    notFoundTitle: '请求不存在',
    notFoundBody: '该审批请求已不存在。',
  },
};

const DEFAULT_OPTIONS = ['Approve', 'Deny'];
const ZH_BUTTONS = { approve: '批准', deny: '拒绝' };
const ZH_HEADING: Record<RequestStatus, string> = {
  pending: '需要审批',
  approved: '已批准',
  denied: '已拒绝',
  expired: '已过期',
  cancelled: '已取消',
};
const ZH_STATUS_WORD: Record<RequestStatus, string> = {
  pending: '待审批',
  approved: '批准',
  denied: '拒绝',
  expired: '过期',
  cancelled: '取消',
};

/** The labels of `language`. */
export function cardLabels(language: FeishuLanguage): CardLabels {
  return LABELS[language];
}

/** Words the card of `request` in `language`. */
export function localizedCardText(
  request: ConfirmationRequest,
  language: FeishuLanguage,
  options: CardTextOptions = {},
): LocalizedCard {
  // The summary is worded by the card model itself, with Chinese words handed in: it still decides what is shown.
  const text = cardText(request, language === 'zh' ? { ...options, summaryWords: CHINESE_SUMMARY_WORDS } : options);
  const custom =
    request.options.length >= 2 &&
    (request.options[0] !== DEFAULT_OPTIONS[0] || request.options[1] !== DEFAULT_OPTIONS[1]);
  const englishButtons = {
    approve: request.options[0] ?? DEFAULT_OPTIONS[0]!,
    deny: request.options[1] ?? DEFAULT_OPTIONS[1]!,
  };
  if (language === 'en') return { ...text, labels: LABELS.en, buttons: englishButtons };
  return {
    ...text,
    title: `${ZH_HEADING[request.status]}：${request.toolName}`,
    prompt: request.prompt ?? `智能体想要运行 \`${request.toolName}\`。`,
    requester: zhRequester(request),
    approvers: request.approvers.length ? request.approvers.join('，') : '任何能看到此卡片的人',
    status: zhStatus(request, options.approvals),
    labels: LABELS.zh,
    // Labels the runtime chose are shown as given; only the defaults are translated.
    buttons: custom ? englishButtons : ZH_BUTTONS,
  };
}

function zhRequester(r: ConfirmationRequest): string | null {
  if (r.agentId && r.userId) return `智能体 ${r.agentId}（代表用户 ${r.userId}）`;
  if (r.agentId) return `智能体 ${r.agentId}`;
  if (r.userId) return `用户 ${r.userId}`;
  return null;
}

function zhStatus(r: ConfirmationRequest, approvals?: number): string {
  const when = r.respondedAt ? `，时间 ${r.respondedAt.toISOString()}` : '';
  const why = r.reason ? `，理由：“${r.reason}”` : '';
  switch (r.status) {
    case 'pending':
      if (r.requiredApprovals > 1 && approvals !== undefined) return `等待批准：${approvals} / ${r.requiredApprovals}`;
      return r.requiredApprovals > 1 ? `等待 ${r.requiredApprovals} 人批准` : '等待审批';
    case 'approved':
      return `已由 ${r.respondedBy} 批准${when}${r.approvedArgs ? '（参数已修改）' : ''}${why}`;
    case 'denied':
      return `已由 ${r.respondedBy} 拒绝${when}${why}`;
    case 'expired':
      return `已过期${r.respondedAt ? `（${r.respondedAt.toISOString()}）` : ''}，默认${r.onTimeout === 'approve' ? '批准' : '拒绝'}`;
    case 'cancelled':
      return `已由 ${r.respondedBy ?? '请求方'} 取消${when}${why}`;
  }
}

/** Toast texts that do not come from the gateway. */
export interface ToastTexts {
  approved: string;
  denied: string;
  recorded: string;
  busy: string;
  failed: string;
  notOurButton: string;
}

const TOASTS: Record<FeishuLanguage, ToastTexts> = {
  en: {
    approved: 'Approved',
    denied: 'Denied',
    recorded: 'Your approval was recorded; more approvals are needed.',
    busy: 'Still working on it; the card will update in a moment.',
    failed: 'Something went wrong while recording your decision; please try again.',
    notOurButton: 'This button does not belong to a tollgate request.',
  },
  zh: {
    approved: '已批准',
    denied: '已拒绝',
    recorded: '已记录你的批准，还需要其他人批准。',
    busy: '正在处理，卡片稍后更新。',
    failed: '记录你的决定时出错，请重试。',
    notOurButton: '此按钮不属于 tollgate 审批请求。',
  },
};

const ZH_REJECTIONS: Record<DecisionRejection, string> = {
  not_found: '该请求不存在。',
  bad_nonce: '此按钮不属于该请求。',
  not_authorized: '你不是该请求的审批人。',
  self_approval: '你不能批准自己发起的请求。',
  already_decided: '该请求已处理。',
  duplicate_approval: '已记录过你的批准。',
  args_mismatch: '卡片发出后参数已变化。',
  invalid: '该决定无效。',
};

/** Toast texts of `language`. */
export function toastTexts(language: FeishuLanguage): ToastTexts {
  return TOASTS[language];
}

/** Why a tap changed nothing, in `language`: the gateway's own sentence in English, a translation in Chinese. */
export function rejectionText(
  language: FeishuLanguage,
  code: DecisionRejection,
  gatewayMessage: string,
  request?: ConfirmationRequest,
): string {
  if (language === 'en') return gatewayMessage;
  if (code === 'already_decided' && request && request.status !== 'pending')
    return `该请求已${ZH_STATUS_WORD[request.status]}。`;
  return ZH_REJECTIONS[code];
}
