/** What a person is told when the server is not there, or wants a token: the fix, never the URL (it may hold a token). */
export const nothingAnswers = (host: string) =>
  `nothing answers at ${host}: start the server (pnpm start), or give its address with --url or AGENTWIRE_URL`;

export const WANTS_TOKEN = "server refused: HTTP 401 (it wants an API token: --token or AGENTWIRE_TOKEN)";
