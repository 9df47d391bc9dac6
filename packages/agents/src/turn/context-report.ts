/** The numbers of the turn's `context_usage` frames that the history alone cannot tell. */
export type ContextReport = {
  budget: number;
  summaryTokens: number;
  scratchpadTokens: number;
  messagesSummarized: number;
  /** History messages neither sent nor covered by the summary sent (0 unless a summarizer failed or was late). */
  messagesDropped: number;
};
