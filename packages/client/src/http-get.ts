import { ClientError, type ClientErrorCode } from "./client-error.js";

/** GETs JSON from the server's HTTP API with the client's token; a failure is a ClientError with the server's code. */
export async function httpGet<T>(base: string, path: string, token: string | undefined): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`${base}${path}`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  } catch (error) {
    throw new ClientError("closed", `GET ${path}: ${String(error)}`);
  }
  const body = (await response.json().catch(() => ({}))) as {
    code?: ClientErrorCode;
    message?: string;
    error?: { code?: ClientErrorCode; message?: string };
  };
  if (response.ok) return body as T;
  const code = body.code ?? body.error?.code ?? (response.status === 401 ? "unauthorized" : "internal");
  throw new ClientError(code, body.message ?? body.error?.message ?? `GET ${path}: HTTP ${response.status}`);
}
