import { ClientError, type ClientErrorCode } from "./client-error.js";

/** Calls the server's HTTP API with the client's token (GET, or PUT with a JSON body); a failure is a ClientError with the server's code. */
export async function httpJson<T>(
  base: string,
  path: string,
  token: string | undefined,
  method = "GET",
  body?: unknown,
): Promise<T> {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  if (body !== undefined) headers["content-type"] = "application/json";
  let response: Response;
  try {
    response = await fetch(`${base}${path}`, {
      method,
      headers,
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
  } catch (error) {
    throw new ClientError("closed", `${method} ${path}: ${String(error)}`);
  }
  const answer = (await response.json().catch(() => ({}))) as {
    code?: ClientErrorCode;
    message?: string;
    error?: { code?: ClientErrorCode; message?: string };
  };
  if (response.ok) return answer as T;
  const code = answer.code ?? answer.error?.code ?? (response.status === 401 ? "unauthorized" : "internal");
  throw new ClientError(
    code,
    answer.message ?? answer.error?.message ?? `${method} ${path}: HTTP ${response.status}`,
  );
}
