import { describe, expect, it } from 'vitest';
import type { FitMessage } from './decoder.js';
import { wheelSensorVerdict } from './wheel.js';

const ANTPLUS = 1;
const BIKE_SPEED = 123;
const HEART_RATE = 120;

function sensor(index: number, deviceType: number): FitMessage {
  return { deviceIndex: index, sourceType: ANTPLUS, deviceType, manufacturer: 1, product: 7 };
}

function verdict(deviceInfos: FitMessage[]): ReturnType<typeof wheelSensorVerdict> {
  return wheelSensorVerdict({ fileId: undefined, deviceInfos, activityMessages: [] });
}

describe('wheelSensorVerdict: repeated and numerous device_infos', () => {
  it('lists each device once however often the recorder repeats it, and finds the wheel sensor among repeats', () => {
    const once = [sensor(0, 0), sensor(1, HEART_RATE), sensor(2, BIKE_SPEED)];
    const repeated = Array.from({ length: 100 }, (_, i) => ({ ...once[i % 3]!, timestamp: i }));
    expect(verdict(repeated)).toEqual(verdict(once));
    expect(verdict(repeated).devices).toHaveLength(3);
    expect(verdict(repeated).wheelSensor).toBe(true);
  });

  it('keeps every device of a file with more distinct ones than it compares, and still finds the last', () => {
    const many = Array.from({ length: 200 }, (_, i) => sensor(i + 1, HEART_RATE));
    const infos = [...many, ...many, sensor(500, BIKE_SPEED)];
    const result = verdict(infos);
    expect(result.devices).toHaveLength(201);
    expect(result.wheelSensor).toBe(true);
    expect(result.reason).toContain('device_index 500');
  });
});
