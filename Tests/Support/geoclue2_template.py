"""A python3-dbusmock template for GeoClue2 (python-dbusmock ships none), for Joule's tests.

Load with `python3 -m dbusmock --template Tests/Support/geoclue2_template.py [--parameters JSON]`.
It models what a GeoClue2 client sees (the interfaces in /usr/share/dbus-1/interfaces/
org.freedesktop.GeoClue2.*.xml, the behaviour of GeoClue's src/gclue-service-*.c):

- Manager at /org/freedesktop/GeoClue2/Manager: GetClient (one client per caller), CreateClient
  (a new one each call), DeleteClient; InUse and AvailableAccuracyLevel.
- Client objects at /org/freedesktop/GeoClue2/Client/N: Location ("/" until the first fix),
  DistanceThreshold, TimeThreshold, DesktopId, RequestedAccuracyLevel, Active; Start, Stop;
  the LocationUpdated(old, new) signal.
- Location objects at CLIENT/Location/N: Latitude, Longitude, Accuracy, Altitude, Speed,
  Heading, Description, Timestamp (tt).

Start refuses, as GeoClue does, a client whose DesktopId is unset, and every Start with
AccessDenied when the parameter "DenyStart" is a message. With "FixOnStart" (a dict of Location
properties) each Start is followed, 50 ms later, by that fix. The test drives the rest through
org.freedesktop.DBus.Mock on the Manager:
- EmitLocation(client o, properties a{sv}) -> o: a new Location object and LocationUpdated;
- StartLevels() -> au: RequestedAccuracyLevel at each successful Start, in order;
- Events() -> as: "CreateClient PATH", "Start PATH", "Stop PATH", "DeleteClient PATH", in order.
Every call is also in the objects' call logs (Mock.GetMethodCalls).
"""

import dbus
import dbusmock
from dbusmock import MOCK_IFACE
from gi.repository import GLib

BUS_NAME = 'org.freedesktop.GeoClue2'
MAIN_OBJ = '/org/freedesktop/GeoClue2/Manager'
MAIN_IFACE = 'org.freedesktop.GeoClue2.Manager'
SYSTEM_BUS = True

CLIENT_IFACE = 'org.freedesktop.GeoClue2.Client'
LOCATION_IFACE = 'org.freedesktop.GeoClue2.Location'


def load(mock, parameters):
    mock.geoclue_clients = {}      # path -> caller's unique name
    mock.geoclue_next_client = 0
    mock.geoclue_locations = {}    # client path -> count
    mock.geoclue_start_levels = []
    mock.geoclue_events = []
    mock.geoclue_deny = parameters.get('DenyStart', '')
    mock.geoclue_fix_on_start = parameters.get('FixOnStart', None)
    mock.AddProperties(MAIN_IFACE, {
        'InUse': dbus.Boolean(False),
        'AvailableAccuracyLevel': dbus.UInt32(8),
    })
    mock.AddMethod(MAIN_IFACE, 'GetClient', '', 'o', lambda self: get_client(self, reuse=True))
    mock.AddMethod(MAIN_IFACE, 'CreateClient', '', 'o', lambda self: get_client(self, reuse=False))
    mock.AddMethod(MAIN_IFACE, 'DeleteClient', 'o', '', delete_client)
    mock.AddMethod(MAIN_IFACE, 'AddAgent', 's', '', '')


def get_client(mock, reuse):
    if reuse and mock.geoclue_clients:
        return dbus.ObjectPath(next(iter(mock.geoclue_clients)))
    mock.geoclue_next_client += 1
    path = f'/org/freedesktop/GeoClue2/Client/{mock.geoclue_next_client}'
    mock.AddObject(path, CLIENT_IFACE, {
        'Location': dbus.ObjectPath('/'),
        'DistanceThreshold': dbus.UInt32(0),
        'TimeThreshold': dbus.UInt32(0),
        'DesktopId': dbus.String(''),
        'RequestedAccuracyLevel': dbus.UInt32(0),
        'Active': dbus.Boolean(False),
    }, [])
    client = dbusmock.get_object(path)
    client.AddMethod(CLIENT_IFACE, 'Start', '', '', lambda self: start(mock, self, path))
    client.AddMethod(CLIENT_IFACE, 'Stop', '', '', lambda self: stop(mock, self, path))
    mock.geoclue_clients[path] = True
    mock.geoclue_locations[path] = 0
    mock.geoclue_events.append(f'CreateClient {path}')
    return dbus.ObjectPath(path)


def delete_client(mock, path):
    path = str(path)
    if path not in mock.geoclue_clients:
        raise dbus.exceptions.DBusException(f'no client {path}', name='org.freedesktop.DBus.Error.InvalidArgs')
    del mock.geoclue_clients[path]
    mock.geoclue_events.append(f'DeleteClient {path}')
    mock.RemoveObject(path)


def start(mock, client, path):
    props = client.props[CLIENT_IFACE]
    if not str(props['DesktopId']):
        raise dbus.exceptions.DBusException("'DesktopId' property must be set",
                                            name='org.freedesktop.DBus.Error.AccessDenied')
    if mock.geoclue_deny:
        raise dbus.exceptions.DBusException(mock.geoclue_deny, name='org.freedesktop.DBus.Error.AccessDenied')
    props['Active'] = dbus.Boolean(True)
    mock.geoclue_start_levels.append(int(props['RequestedAccuracyLevel']))
    mock.geoclue_events.append(f'Start {path}')
    if mock.geoclue_fix_on_start is not None:
        fix = dict(mock.geoclue_fix_on_start)
        GLib.timeout_add(50, lambda: (emit_location(mock, path, fix), False)[1])


def stop(mock, client, path):
    client.props[CLIENT_IFACE]['Active'] = dbus.Boolean(False)
    mock.geoclue_events.append(f'Stop {path}')


def emit_location(mock, path, properties):
    client = dbusmock.get_object(path)
    if not bool(client.props[CLIENT_IFACE]['Active']):
        return dbus.ObjectPath('/')    # GeoClue sends nothing to a stopped client
    mock.geoclue_locations[path] += 1
    location = f'{path}/Location/{mock.geoclue_locations[path]}'
    values = {
        'Latitude': dbus.Double(0.0), 'Longitude': dbus.Double(0.0), 'Accuracy': dbus.Double(0.0),
        'Altitude': dbus.Double(-1.7976931348623157e308), 'Speed': dbus.Double(-1.0),
        'Heading': dbus.Double(-1.0), 'Description': dbus.String(''),
        'Timestamp': dbus.Struct((dbus.UInt64(0), dbus.UInt64(0)), signature='tt'),
    }
    for key, value in properties.items():
        if key == 'Timestamp':
            # (seconds, µs), or seconds as one number
            seconds, micros = (value, 0) if isinstance(value, (int, float)) else value
            values[key] = dbus.Struct((dbus.UInt64(int(seconds)), dbus.UInt64(int(micros))), signature='tt')
        elif key == 'Description':
            values[key] = dbus.String(value)
        else:
            values[key] = dbus.Double(value)
    mock.AddObject(location, LOCATION_IFACE, values, [])
    old = client.props[CLIENT_IFACE]['Location']
    client.props[CLIENT_IFACE]['Location'] = dbus.ObjectPath(location)
    client.EmitSignal(CLIENT_IFACE, 'LocationUpdated', 'oo', [old, dbus.ObjectPath(location)])
    return dbus.ObjectPath(location)


@dbus.service.method(MOCK_IFACE, in_signature='oa{sv}', out_signature='o')
def EmitLocation(self, client, properties):
    return emit_location(self, str(client), properties)


@dbus.service.method(MOCK_IFACE, in_signature='', out_signature='au')
def StartLevels(self):
    return dbus.Array([dbus.UInt32(level) for level in self.geoclue_start_levels], signature='u')


@dbus.service.method(MOCK_IFACE, in_signature='', out_signature='as')
def Events(self):
    return dbus.Array(self.geoclue_events, signature='s')
