import type { SensorDevice } from '../model.js';
import type { FitMessage } from './decoder.js';
import { deviceName, numberField, stringField } from './names.js';
import { snakeCase, typeValue, typeValueName } from './profile.js';

/**
 * The wheel-sensor rule for FIT (docs/contributors/architecture.md, `@rideport/ridefile`): `s` and `d` are kept only when a
 * device_info other than the recording device (device_index ≠ 0) is a bike speed sensor:
 * ANT+ (or no) source with device type 121 (bike_speed_cadence) or 123 (bike_speed), or a Bluetooth
 * source with type 3 or 4 (bike_speed_cadence, bike_speed) — or 121/123, which some vendors write
 * under the Bluetooth source. Never for virtual rides, never with a smart trainer's speed.
 * Multisport files are limited to their cycling sessions by the reader.
 */

const SOURCE = {
  ant: typeValue('sourceType', 'ant'),
  antplus: typeValue('sourceType', 'antplus'),
  bluetooth: typeValue('sourceType', 'bluetooth'),
  bluetoothLowEnergy: typeValue('sourceType', 'bluetoothLowEnergy'),
  local: typeValue('sourceType', 'local'),
};

const ANTPLUS_WHEEL_TYPES = new Set([
  typeValue('antplusDeviceType', 'bikeSpeedCadence'),
  typeValue('antplusDeviceType', 'bikeSpeed'),
]);
const BLE_WHEEL_TYPES = new Set([
  typeValue('bleDeviceType', 'bikeSpeedCadence'),
  typeValue('bleDeviceType', 'bikeSpeed'),
]);
const ANTPLUS_TRAINER = typeValue('antplusDeviceType', 'fitnessEquipment');
const BLE_TRAINER = typeValue('bleDeviceType', 'bikeTrainer');
const VIRTUAL_ACTIVITY = typeValue('subSport', 'virtualActivity');

/** Recorders of virtual rides: their speed and distance are simulated, whatever sensors they list. */
const VIRTUAL_MANUFACTURERS = new Set(['zwift', 'zwiftByte', 'mywhoosh']);
const VIRTUAL_PRODUCT = /virtual|zwift|whoosh|rouvy|fulgaz|bkool|kinomap|rgt/i;

export interface WheelVerdict {
  wheelSensor: boolean;
  reason: string;
  devices: SensorDevice[];
}

export function wheelSensorVerdict(input: {
  fileId: FitMessage | undefined;
  deviceInfos: FitMessage[];
  /** sessions, sports and laps: any of them may name the virtual_activity sub-sport */
  activityMessages: FitMessage[];
}): WheelVerdict {
  const deviceInfos = distinctDeviceInfos(input.deviceInfos);
  const devices = describeDevices(deviceInfos);

  const virtual = virtualRideReason(input.fileId, input.activityMessages);
  if (virtual !== null) return { wheelSensor: false, reason: virtual, devices };

  const trainer = deviceInfos.find(isSmartTrainer);
  if (trainer !== undefined) {
    return {
      wheelSensor: false,
      reason: `a smart trainer is connected (${describeDevice(trainer)}): its speed and distance are not a wheel sensor's`,
      devices,
    };
  }

  const wheel = deviceInfos.find(isWheelSensor);
  if (wheel === undefined) {
    return { wheelSensor: false, reason: 'no bike speed sensor among the connected devices', devices };
  }
  return { wheelSensor: true, reason: `wheel sensor: ${describeDevice(wheel)}`, devices };
}

function isWheelSensor(info: FitMessage): boolean {
  if (numberField(info, 'deviceIndex') === 0) return false;
  const type = numberField(info, 'deviceType');
  if (type === undefined) return false;
  const source = numberField(info, 'sourceType');
  if (source === undefined || source === SOURCE.antplus) return ANTPLUS_WHEEL_TYPES.has(type);
  if (source === SOURCE.bluetooth || source === SOURCE.bluetoothLowEnergy) {
    return BLE_WHEEL_TYPES.has(type) || ANTPLUS_WHEEL_TYPES.has(type);
  }
  return false;
}

function isSmartTrainer(info: FitMessage): boolean {
  const type = numberField(info, 'deviceType');
  const source = numberField(info, 'sourceType');
  if (source === undefined || source === SOURCE.antplus || source === SOURCE.ant)
    return type === ANTPLUS_TRAINER;
  if (source === SOURCE.bluetooth || source === SOURCE.bluetoothLowEnergy) return type === BLE_TRAINER;
  return false;
}

function virtualRideReason(fileId: FitMessage | undefined, activityMessages: FitMessage[]): string | null {
  const manufacturer = typeValueName('manufacturer', numberField(fileId, 'manufacturer'));
  const productName = stringField(fileId, 'productName');
  if (
    (manufacturer !== null && VIRTUAL_MANUFACTURERS.has(manufacturer)) ||
    (productName !== null && VIRTUAL_PRODUCT.test(productName))
  ) {
    return `virtual ride recorded by ${deviceName(fileId) ?? 'a virtual-ride app'}: speed and distance are simulated`;
  }
  if (activityMessages.some((message) => numberField(message, 'subSport') === VIRTUAL_ACTIVITY)) {
    return 'virtual ride (sub-sport virtual_activity): speed and distance are simulated';
  }
  return null;
}

/** Distinct devices looked for among the device_infos; past this many the rest are kept as they are. */
const MAX_DISTINCT_DEVICES = 64;

/**
 * The device_infos without repeats: recorders write the same ones many times (a Wahoo ELEMNT file: 310
 * of them, 9 distinct), and a repeat changes nothing in the rule or the SensorDevice list, which take
 * the first of each. A repeat has the same value in every field they read. Comparing with the few
 * distinct ones so far is cheaper than a string key per message; the bound keeps a hostile file of
 * thousands of distinct devices linear (the list stays correct, only longer).
 */
function distinctDeviceInfos(deviceInfos: FitMessage[]): FitMessage[] {
  const distinct: FitMessage[] = [];
  for (const info of deviceInfos) {
    if (distinct.length < MAX_DISTINCT_DEVICES && distinct.some((kept) => sameDevice(kept, info))) continue;
    distinct.push(info);
  }
  return distinct;
}

function sameDevice(a: FitMessage, b: FitMessage): boolean {
  return (
    a['deviceIndex'] === b['deviceIndex'] &&
    a['sourceType'] === b['sourceType'] &&
    a['deviceType'] === b['deviceType'] &&
    a['manufacturer'] === b['manufacturer'] &&
    a['productName'] === b['productName'] &&
    a['product'] === b['product'] &&
    a['descriptor'] === b['descriptor']
  );
}

function describeDevices(deviceInfos: FitMessage[]): SensorDevice[] {
  const seen = new Set<string>();
  const devices: SensorDevice[] = [];
  for (const info of deviceInfos) {
    const device: SensorDevice = {
      index: numberField(info, 'deviceIndex') ?? null,
      sourceType: nameOrNull(typeValueName('sourceType', numberField(info, 'sourceType'))),
      deviceType: deviceTypeName(info),
      manufacturer: nameOrNull(typeValueName('manufacturer', numberField(info, 'manufacturer'))),
      product: stringField(info, 'productName') ?? numberToString(numberField(info, 'product')),
      name: stringField(info, 'descriptor') ?? deviceName(info),
    };
    const key = JSON.stringify([
      device.index,
      device.sourceType,
      device.deviceType,
      device.manufacturer,
      device.product,
    ]);
    if (seen.has(key)) continue;
    seen.add(key);
    devices.push(device);
  }
  return devices;
}

function deviceTypeName(info: FitMessage): string | null {
  const type = numberField(info, 'deviceType');
  if (type === undefined) return null;
  const source = numberField(info, 'sourceType');
  let name: string | null = null;
  if (source === SOURCE.bluetooth || source === SOURCE.bluetoothLowEnergy)
    name = typeValueName('bleDeviceType', type);
  else if (source === SOURCE.local) name = typeValueName('localDeviceType', type);
  else if (source === undefined || source === SOURCE.antplus) name = typeValueName('antplusDeviceType', type);
  return name === null ? String(type) : snakeCase(name);
}

function describeDevice(info: FitMessage): string {
  const source = nameOrNull(typeValueName('sourceType', numberField(info, 'sourceType'))) ?? 'unknown source';
  const type = deviceTypeName(info) ?? 'unknown type';
  const raw = numberField(info, 'deviceType');
  const index = numberField(info, 'deviceIndex');
  return `${source} ${type}${raw === undefined || String(raw) === type ? '' : ` (${raw})`}${index === undefined ? '' : `, device_index ${index}`}`;
}

function nameOrNull(name: string | null): string | null {
  return name === null ? null : snakeCase(name);
}

function numberToString(value: number | undefined): string | null {
  return value === undefined ? null : String(value);
}
