/**
 * A Lua prelude setting `now` to Redis's clock in milliseconds: scripts time their entries by Redis
 * (TIME), not by the instances, so the instances' clocks need not agree.
 */
export const REDIS_NOW = `local t = redis.call("TIME") local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;
